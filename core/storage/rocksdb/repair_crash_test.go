package rocksdb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// A large ingest killed with SIGKILL leaves write-ahead logs that the
// MANIFEST tracks (closed, synced, not yet deleted: another family still
// needs them) and table files that hold writes from the middle of those
// logs (one family flushed). Damage in such a log is the case where
// RocksDB 7.8 aborts a read-only open that does not verify tracked logs,
// and refuses point-in-time recovery to the damage (the table files are
// ahead of it). Repair must neither abort nor leave the store worse: it
// reports what it dropped, and from where, and the store opens.

func init() {
	childModes["ingest"] = ingestChild
	childModes["repair"] = repairChild
}

// ingestKeepKey is the row the ingest child writes first, in a family it
// never writes again: its memtable keeps the first log alive.
func ingestKeepKey(s storage.TenantScope) storage.Key {
	return storage.NodeVersionKey(s, uuid.MustParse("0190a000-0000-7000-8000-00000000abcd"), 0, 0)
}

// ingestKey is the key of the ingest child's batch i: one chunk of a
// document in the sources family.
func ingestKey(s storage.TenantScope, i int) storage.Key {
	return storage.SourceChunkKey(s, uuid.MustParse("0190a000-0000-7000-8000-00000000dcba"), uint64(i))
}

// ingestValue is the value of batch i: 64 KiB of random bytes seeded by i,
// which do not compress, so that table files grow as the log does.
func ingestValue(i int) []byte {
	v := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(uint64(i), 0))
	for j := 0; j < len(v); j += 8 {
		binary.LittleEndian.PutUint64(v[j:], rng.Uint64())
	}
	return v
}

// ingestChild writes the keep row, then durable batches of one large
// source chunk each, until it is killed.
func ingestChild(t *testing.T, path, extra string) {
	tenant, org, _ := strings.Cut(extra, ",")
	s, err := storage.NewTenantScope(uuid.MustParse(tenant), uuid.MustParse(org))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{Path: path, MemtableSize: testMemtableSize, CreateIfMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	var b storage.Batch
	b.Put(ingestKeepKey(s), []byte("kept"))
	if err := e.WriteDurable(&b); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		var b storage.Batch
		b.Put(ingestKey(s, i), ingestValue(i))
		if err := e.WriteDurable(&b); err != nil {
			t.Fatal(err)
		}
	}
}

// repairChild repairs the store and prints the report as JSON.
func repairChild(t *testing.T, path, _ string) {
	rep, err := Repair(path)
	if err != nil {
		t.Fatal(err)
	}
	rep.Damage = nil // an error does not marshal; the parent reads the rest
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(append(out, '\n'))
}

// killedIngest runs ingestChild on a new store and kills it with SIGKILL
// once a flush has written source chunks to a table file while the first
// log is still there; it returns the store.
func killedIngest(t *testing.T, s storage.TenantScope) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store")
	c := startChild(t, "ingest", path, s.Tenant().String()+","+s.Organization().String())
	deadline := time.Now().Add(2 * time.Minute)
	for !ingestFlushed(path) {
		if time.Now().After(deadline) {
			_ = c.cmd.Process.Kill()
			t.Fatal("the ingest child flushed no table file within two minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the ingest child ended on its own: %v", c.cmd.ProcessState)
	}
	return path
}

// ingestFlushed reports whether the store at path holds two table files of
// more than 512 KiB (source chunks flushed) and two logs.
func ingestFlushed(path string) bool {
	big := 0
	tables, _ := filepath.Glob(filepath.Join(path, "*.sst"))
	for _, f := range tables {
		if info, err := os.Stat(f); err == nil && info.Size() > 512<<10 {
			big++
		}
	}
	logs, _ := filepath.Glob(filepath.Join(path, "*.log"))
	return big >= 2 && len(logs) >= 2
}

// TestRepairAfterKilledIngest kills a large ingest, zeroes a stretch in
// the middle of its oldest log that holds batches, and repairs the store in
// a child process (an abort would end only the child): Open refuses the
// damaged store naming the log; Repair exits cleanly, names the log and
// the offset of the damage, and counts what it dropped; the repaired store
// opens, holds the row of the first log, and every chunk it holds is the
// one written.
func TestRepairAfterKilledIngest(t *testing.T) {
	t.Parallel()
	s := newScope(t)
	path := killedIngest(t, s)
	logs, err := scanLogs(path)
	if err != nil {
		t.Fatal(err)
	}
	target := firstWithBatches(logs)
	if target == nil {
		t.Fatal("the killed ingest left no log with batches")
	}
	size := fileSize(t, target.path)
	at := size / 2
	writeAt(t, target.path, at, make([]byte, min(64<<10, size-at)))

	var ce *CorruptError
	if _, err := Open(Config{Path: path}); !errors.As(err, &ce) || ce.File != target.path {
		t.Fatalf("Open of the damaged store = %v, want a *CorruptError naming %s", err, target.path)
	}
	c := startChild(t, "repair", path, "")
	if !c.out.Scan() {
		_ = c.cmd.Wait()
		t.Fatalf("the repair child printed no report: %v", c.cmd.ProcessState)
	}
	var rep RepairReport
	if err := json.Unmarshal(c.out.Bytes(), &rep); err != nil {
		t.Fatalf("report %q: %v", c.out.Text(), err)
	}
	_ = c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("the repair child failed: %v", err)
	}
	t.Logf("report: %+v", rep)
	if rep.From != target.path || rep.Offset < at-walBlockLen || rep.Offset > at+walBlockLen {
		t.Errorf("the report drops from %s at %d; the damage is in %s at %d", rep.From, rep.Offset, target.path, at)
	}
	if rep.DroppedBatches == 0 || rep.DroppedWrites == 0 {
		t.Errorf("the report drops %d batches, %d writes: the zeroed stretch held batches", rep.DroppedBatches, rep.DroppedWrites)
	}

	e, err := Open(Config{Path: path})
	if err != nil {
		t.Fatalf("Open after Repair: %v", err)
	}
	defer e.Close()
	if v, err := e.Get(ingestKeepKey(s)); err != nil || string(v) != "kept" {
		t.Errorf("the row of the first log after Repair: %q, %v", v, err)
	}
	held := 0
	for i := range int(rep.Sequence) {
		v, err := e.Get(ingestKey(s, i))
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue
		case err != nil:
			t.Fatalf("chunk %d: %v", i, err)
		case !bytes.Equal(v, ingestValue(i)):
			t.Fatalf("chunk %d holds another value after Repair", i)
		}
		held++
	}
	if held == 0 || uint64(held)+rep.DroppedWrites+1 < rep.Sequence {
		t.Errorf("%d chunks held and %d writes dropped, of %d", held, rep.DroppedWrites, rep.Sequence)
	}
}
