package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// forgeLedger rewrites the ledger file src into dst with the tenant and
// organization of every entry set to those of scope, and every checksum
// recomputed: a forged file that reads as a well-formed ledger (the value
// format is that of core/storage/system/ledger, value.go and file.go).
func forgeLedger(t *testing.T, src, dst, scope string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s, err := lifecycle.ParseScope(scope)
	if err != nil {
		t.Fatal(err)
	}
	tenant, org := s.Tenant(), s.Organization()
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	head := len("TELHA-LEDGER") + 1
	out := bytes.Clone(b[:head])
	for off := head; ; {
		n := binary.BigEndian.Uint32(b[off:])
		out = binary.BigEndian.AppendUint32(out, n)
		off += 4
		if n == 0xFFFFFFFF {
			out = append(out, b[off:off+8]...) // the entry count
			break
		}
		v := bytes.Clone(b[off : off+int(n)])
		copy(v[19:35], tenant[:])
		copy(v[35:51], org[:])
		binary.BigEndian.PutUint32(v[len(v)-4:], crc32.Checksum(v[:len(v)-4], castagnoli))
		out = append(out, v...)
		off += int(n)
	}
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	if err := os.WriteFile(dst, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestExitStatus runs every command of the CLI into each of the exit
// statuses it has (README, "Exit status"): 0 for success, 1 for an
// operation that failed (a store held by another process, rows that
// remain), 2 for refused input (bad flags, unusable or dangerous paths,
// damaged or forged files, unknown tenants and blobs). A refusal prints one
// line on stderr and writes nothing: a command pointed at a new -data
// leaves no store there.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	dir, kept, gone, node := erasureStore(t)
	base := t.TempDir()
	path := func(name string) string { return filepath.Join(base, name) }
	file := writeDoc(t, base, "file", "not a store, nor an export\n")
	doc := writeDoc(t, base, "doc.txt", "a document\n")
	binary := writeDoc(t, base, "binary.txt", "valid, then \xff")
	mustTelha(t, "checkpoint", "-data", dir, "-to", path("ckpt"))
	mustTelha(t, "tenant", "export", "-data", dir, "-scope", "kept", "-o", path("kept.telha"))
	id := strings.TrimSpace(mustTelha(t, "source", "put", "-data", dir, "-scope", "kept", doc))
	mustTelha(t, "tenant", "erase", "-yes", "-data", dir, "-scope", "gone")
	mustTelha(t, "ledger", "export", "-data", dir, "-o", path("ledger"))
	forgeLedger(t, path("ledger"), path("forged"), kept)
	damaged, err := os.ReadFile(path("ledger"))
	if err != nil {
		t.Fatal(err)
	}
	damaged[len(damaged)/2] ^= 0x40
	mustWrite(t, path("damaged"), string(damaged))
	other, _, _, _ := erasureStore(t)
	mustTelha(t, "tenant", "erase", "-yes", "-data", other, "-scope", "gone")
	held := path("held")
	mustTelha(t, "tenant", "provision", "-data", held, "-scope", lifecycle.FormatScope(storagetest.TenantScope(t)), "-name", "held")
	storagetest.OpenRocksDB(t, held) // held open by this process until the test ends
	newScope := lifecycle.FormatScope(storagetest.TenantScope(t))

	tests := []struct {
		name string
		args []string
		want int
		// fresh is a -data (or other output) that must not exist after
		// a refused command.
		fresh string
	}{
		{"demo: a directory it did not create", []string{"demo", "-data", dir}, exitUsage, ""},
		{"demo: a bad flag", []string{"demo", "-bogus"}, exitUsage, ""},
		{"cluster: no -data", []string{"cluster"}, exitUsage, ""},
		{"repair: a healthy store", []string{"repair", "-data", dir}, exitOK, ""},
		{"repair: no store", []string{"repair", "-data", path("none")}, exitUsage, path("none")},
		{"repair: a store in use", []string{"repair", "-data", held}, exitError, ""},

		{"tenant provision", []string{"tenant", "provision", "-data", dir, "-scope", newScope, "-name", "later"}, exitOK, ""},
		{"tenant provision: a bad name, a new store", []string{"tenant", "provision", "-data", path("p1"), "-scope", newScope, "-name", "Bad Name"}, exitUsage, path("p1")},
		{"tenant provision: a bad scope, a new store", []string{"tenant", "provision", "-data", path("p2"), "-scope", "x:y", "-name", "ok"}, exitUsage, path("p2")},
		{"tenant provision: a name taken", []string{"tenant", "provision", "-data", dir, "-scope", lifecycle.FormatScope(storagetest.TenantScope(t)), "-name", "kept"}, exitUsage, ""},
		{"tenant provision: under /proc", []string{"tenant", "provision", "-data", "/proc/telha-exit-test", "-scope", newScope, "-name", "ok"}, exitUsage, "/proc/telha-exit-test"},
		{"tenant provision: where mkdir is not permitted", []string{"tenant", "provision", "-data", "/sys/fs/telha-exit-test", "-scope", newScope, "-name", "ok"}, exitUsage, "/sys/fs/telha-exit-test"},
		{"tenant provision: under a file", []string{"tenant", "provision", "-data", filepath.Join(file, "store"), "-scope", newScope, "-name", "ok"}, exitUsage, ""},
		{"tenant provision: a store in use", []string{"tenant", "provision", "-data", held, "-scope", newScope, "-name", "ok"}, exitError, ""},
		{"tenant list", []string{"tenant", "list", "-data", dir}, exitOK, ""},
		{"tenant list: no store", []string{"tenant", "list", "-data", path("l1")}, exitUsage, path("l1")},
		{"tenant list: a file", []string{"tenant", "list", "-data", file}, exitUsage, ""},
		{"tenant list: /proc/self", []string{"tenant", "list", "-data", "/proc/self"}, exitUsage, ""},
		{"tenant list: a store in use", []string{"tenant", "list", "-data", held}, exitError, ""},
		{"tenant export", []string{"tenant", "export", "-data", dir, "-scope", "kept", "-o", path("e1")}, exitOK, ""},
		{"tenant export: -o exists", []string{"tenant", "export", "-data", dir, "-scope", "kept", "-o", file}, exitUsage, ""},
		{"tenant export: -o under a file", []string{"tenant", "export", "-data", dir, "-scope", "kept", "-o", filepath.Join(file, "x")}, exitUsage, ""},
		{"tenant export: -o inside the store", []string{"tenant", "export", "-data", dir, "-scope", "kept", "-o", filepath.Join(dir, "x")}, exitUsage, filepath.Join(dir, "x")},
		{"tenant export: an erased tenant", []string{"tenant", "export", "-data", dir, "-scope", gone, "-o", path("e2")}, exitUsage, path("e2")},
		{"tenant import: not an export", []string{"tenant", "import", "-data", dir, "-scope", "kept", file}, exitUsage, ""},
		{"tenant import: into a tenant with rows", []string{"tenant", "import", "-data", dir, "-scope", "kept", path("kept.telha")}, exitUsage, ""},
		{"tenant import: no file", []string{"tenant", "import", "-data", dir, "-scope", "kept", path("none.telha")}, exitUsage, ""},
		{"tenant verify: rows remain", []string{"tenant", "verify", "-data", dir, "-scope", kept}, exitError, ""},
		{"tenant verify: none remain", []string{"tenant", "verify", "-data", dir, "-scope", gone}, exitOK, ""},
		{"tenant verify: an unknown name", []string{"tenant", "verify", "-data", dir, "-scope", "nobody"}, exitUsage, ""},
		{"tenant erase: an unknown name", []string{"tenant", "erase", "-yes", "-data", dir, "-scope", "nobody"}, exitUsage, ""},
		{"tenant erase: a store in use", []string{"tenant", "erase", "-yes", "-data", held, "-scope", "held"}, exitError, ""},
		{"entity erase: no such entity", []string{"entity", "erase", "-yes", "-data", dir, "-scope", kept, "-id", uuid.NewString()}, exitUsage, ""},
		{"entity erase: a node of an erased tenant", []string{"entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", node.String()}, exitUsage, ""},

		{"source put", []string{"source", "put", "-data", dir, "-scope", "kept", doc}, exitOK, ""},
		{"source put: an unknown name, a new store", []string{"source", "put", "-data", path("s1"), "-scope", "nobody", doc}, exitUsage, path("s1")},
		{"source put: not canonical, a new store", []string{"source", "put", "-data", path("s2"), "-scope", newScope, binary}, exitUsage, path("s2")},
		{"source put: no file, a new store", []string{"source", "put", "-data", path("s3"), "-scope", newScope, path("none.txt")}, exitUsage, path("s3")},
		{"source get", []string{"source", "get", "-data", dir, "-scope", "kept", "-id", id}, exitOK, ""},
		{"source get: no such blob", []string{"source", "get", "-data", dir, "-scope", "kept", "-id", uuid.NewString()}, exitUsage, ""},
		{"source facts", []string{"source", "facts", "-data", dir, "-scope", "kept", "-id", id}, exitOK, ""},
		{"source redact: a bad range", []string{"source", "redact", "-yes", "-data", dir, "-scope", "kept", "-id", id, "-range", "5:1"}, exitUsage, ""},
		{"source delete: no such blob", []string{"source", "delete", "-yes", "-data", dir, "-scope", "kept", "-id", uuid.NewString()}, exitUsage, ""},

		{"checkpoint", []string{"checkpoint", "-data", dir, "-to", path("c1")}, exitOK, ""},
		{"checkpoint: -to inside the store", []string{"checkpoint", "-data", dir, "-to", filepath.Join(dir, "ckpt")}, exitUsage, filepath.Join(dir, "ckpt")},
		{"checkpoint: -to under a file", []string{"checkpoint", "-data", dir, "-to", filepath.Join(file, "ckpt")}, exitUsage, ""},
		{"checkpoint: -to exists", []string{"checkpoint", "-data", dir, "-to", path("ckpt")}, exitUsage, ""},
		{"checkpoint: -to under /proc", []string{"checkpoint", "-data", dir, "-to", "/proc/telha-exit-ckpt"}, exitUsage, ""},
		{"ledger export", []string{"ledger", "export", "-data", dir, "-o", path("l2")}, exitOK, ""},
		{"ledger export: -o exists", []string{"ledger", "export", "-data", dir, "-o", file}, exitUsage, ""},

		{"restore", []string{"restore", "-from", path("ckpt"), "-data", path("r1"), "-ledger", path("ledger")}, exitOK, ""},
		{"restore: a forged ledger", []string{"restore", "-from", path("ckpt"), "-data", path("r2"), "-ledger", path("forged")}, exitUsage, path("r2")},
		{"restore: a damaged ledger", []string{"restore", "-from", path("ckpt"), "-data", path("r3"), "-ledger", path("damaged")}, exitUsage, path("r3")},
		{"restore: another deployment's ledger", []string{"restore", "-from", path("ckpt"), "-data", path("r4"), "-ledger", other}, exitUsage, path("r4")},
		{"restore: -from /proc/self", []string{"restore", "-from", "/proc/self", "-data", path("r5"), "-ledger", path("ledger")}, exitUsage, path("r5")},
		{"restore: -from a file", []string{"restore", "-from", file, "-data", path("r6"), "-ledger", path("ledger")}, exitUsage, path("r6")},
		{"restore: -ledger not a ledger", []string{"restore", "-from", path("ckpt"), "-data", path("r7"), "-ledger", file}, exitUsage, path("r7")},

		{"debug decode-key: bad hex", []string{"debug", "decode-key", "node_versions", "zz"}, exitUsage, ""},
		{"an unknown command", []string{"frobnicate"}, exitUsage, ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := telha(t, tt.args...)
		if code != tt.want {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tt.name, code, tt.want, stderr)
		}
		if code != exitOK && (strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "telha: ")) && !strings.Contains(stderr, "telha: tenant erase:") {
			t.Errorf("%s: stderr is not one telha line: %q (stdout %q)", tt.name, stderr, stdout)
		}
		if tt.fresh != "" {
			if _, err := os.Lstat(tt.fresh); err == nil {
				t.Errorf("%s: the refused command left %s", tt.name, tt.fresh)
			}
		}
	}
}
