package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

// lockClusterDir takes an exclusive lock (flock(2)) on the cluster
// directory dir, making it if missing, and returns the function that
// releases it. The lock is on the directory itself, so that no file is
// added to it; a directory another process holds is refused, with that
// process's id (from /proc/locks) when the kernel says it: an operation
// that failed (exit 1), as a store in use is.
func lockClusterDir(dir string) (func() error, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, usagef("cluster: -data %s: %v", dir, err)
	}
	l := flock.New(dir, flock.SetFlag(os.O_RDONLY))
	ok, err := l.TryLock()
	switch {
	case err != nil:
		return nil, usagef("cluster: lock %s: %v", dir, err)
	case !ok:
		if pid := lockHolder(dir); pid > 0 {
			return nil, fmt.Errorf("cluster: already running (pid %d) in %s; stop it (kill %d) or choose another -data", pid, dir, pid)
		}
		return nil, fmt.Errorf("cluster: already running in %s; stop it or choose another -data", dir)
	}
	return l.Unlock, nil
}

// lockHolder returns the id of the process that holds a flock on path,
// read from /proc/locks by the path's device and inode, or 0.
func lockHolder(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 3467 fd:01:1321 0 EOF"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		if id := strings.Split(fields[5], ":"); len(id) == 3 && sameFile(id, st) {
			pid, _ := strconv.Atoi(fields[4])
			return pid
		}
	}
	return 0
}

// sameFile reports whether MAJOR:MINOR:INODE of /proc/locks (hex, hex,
// decimal) is the file of st.
func sameFile(id []string, st *syscall.Stat_t) bool {
	major, err1 := strconv.ParseUint(id[0], 16, 32)
	minor, err2 := strconv.ParseUint(id[1], 16, 32)
	ino, err3 := strconv.ParseUint(id[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return false
	}
	dev := uint64(st.Dev)
	return ino == st.Ino && major == uint64(unix.Major(dev)) && minor == uint64(unix.Minor(dev))
}
