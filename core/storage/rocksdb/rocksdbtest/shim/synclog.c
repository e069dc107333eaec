// synclog is preloaded (LD_PRELOAD) into a process whose RocksDB store a
// test will cut back as a power loss would: it records, for every fsync or
// fdatasync of a write-ahead log (*.log) that succeeds, the file's path and
// its size when the sync began, in the file named by TELHA_SYNC_RECORD, one
// line "size path" per sync. Every byte below that size is on stable
// storage; nothing above it need be.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int record = -1;
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

__attribute__((constructor)) static void synclog_init(void) {
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	const char *name = getenv("TELHA_SYNC_RECORD");
	if (name != NULL) {
		record = open(name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	}
}

// log_size returns the size of fd when it is a write-ahead log, -1
// otherwise, and its path in path.
static long long log_size(int fd, char *path, size_t len) {
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, len - 1);
	if (n < 4) {
		return -1;
	}
	path[n] = 0;
	if (strcmp(path + n - 4, ".log") != 0) {
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		return -1;
	}
	return (long long)st.st_size;
}

// synced syncs fd with sync and records what the sync covered.
static int synced(int fd, int (*sync)(int)) {
	char path[PATH_MAX];
	long long size = record >= 0 ? log_size(fd, path, sizeof path) : -1;
	int r = sync(fd);
	if (r == 0 && size >= 0) {
		char line[PATH_MAX + 32];
		int n = snprintf(line, sizeof line, "%lld %s\n", size, path);
		// One write of an O_APPEND file: lines never interleave.
		if (write(record, line, n) != n) {
			abort();
		}
	}
	return r;
}

int fsync(int fd) { return synced(fd, real_fsync); }

int fdatasync(int fd) { return synced(fd, real_fdatasync); }
