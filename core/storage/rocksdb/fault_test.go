package rocksdb

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"telha.dev/core/storage"
)

// The fault-injection suite damages stores the way disks, file systems and
// operators do, and demands of every fault one of two outcomes: Open
// refuses the store with a typed error (storage.ErrCorrupt; a *CorruptError
// naming the log file for log damage), and Repair then makes it open again
// holding every batch it does not report dropped; or the store opens with
// every acknowledged batch whole. Never a panic, never an abort, never an
// acknowledged batch missing without an error. Reads of a damaged table
// file may fail, with storage.ErrCorrupt, but never return a wrong value.

// faultBatches is how many durable batches the fault stores hold: enough
// to fill several 32 KiB log blocks, few enough to stay in the memtables.
const faultBatches = 120

// fillChild writes durable batches 1 to extra, says "done", and waits to
// be killed: its store is then a crash image, its log holding every batch.
func fillChild(t *testing.T, path, extra string) {
	n, err := strconv.ParseUint(extra, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{Path: path, MemtableSize: testMemtableSize})
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(1); id <= n; id++ {
		if err := e.WriteDurable(batchOf(id)); err != nil {
			t.Fatal(err)
		}
	}
	os.Stdout.WriteString("done\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// batchOf is the batch crashBatch(id) describes.
func batchOf(id uint64) *storage.Batch {
	var b storage.Batch
	keys, values := crashBatch(id)
	for i, k := range keys {
		b.Put(k, values[i])
	}
	return &b
}

// crashedStore returns a store that a killed child filled with durable
// batches 1 to faultBatches, never closing it.
func crashedStore(t *testing.T) string {
	t.Helper()
	cfg := createStore(t)
	c := startChild(t, "fill", cfg.Path, strconv.Itoa(faultBatches))
	c.waitFor(t, "done")
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	return cfg.Path
}

// closedStore returns a store holding batches 1 to faultBatches, closed
// cleanly, so flushed to table files.
func closedStore(t *testing.T) string {
	t.Helper()
	cfg := createStore(t)
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(1); id <= faultBatches; id++ {
		if err := e.WriteDurable(batchOf(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg.Path
}

// copyStore copies the files of the store at src into a new directory, an
// independent image to damage.
func copyStore(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "store")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fault damages the store at path; it fails the test if the store has
// nothing of the kind to damage.
type fault struct {
	name   string
	damage func(t *testing.T, path string)
}

// newest returns the newest file of the store matching pattern with at
// least min bytes, by name (RocksDB numbers its files in order).
func newest(t *testing.T, path, pattern string, min int64) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(path, pattern))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	for i := len(files) - 1; i >= 0; i-- {
		if info, err := os.Stat(files[i]); err == nil && info.Size() >= min {
			return files[i]
		}
	}
	t.Fatalf("no %s of %d bytes or more in %s", pattern, min, path)
	return ""
}

// largest returns the largest file of the store matching pattern.
func largest(t *testing.T, path, pattern string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(path, pattern))
	var best string
	var size int64 = -1
	for _, f := range files {
		if info, err := os.Stat(f); err == nil && info.Size() > size {
			best, size = f, info.Size()
		}
	}
	if best == "" {
		t.Fatalf("no %s in %s", pattern, path)
	}
	return best
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func truncate(t *testing.T, name string, size int64) {
	t.Helper()
	if err := os.Truncate(name, size); err != nil {
		t.Fatal(err)
	}
}

// flip inverts n bytes of name at offset off.
func flip(t *testing.T, name string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] ^= 0xff
	}
	if _, err := f.WriteAt(buf, off); err != nil {
		t.Fatal(err)
	}
}

// writeAt writes b into name at offset off.
func writeAt(t *testing.T, name string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
}

// lastBatchAt returns the offset of the last batch record of the log.
func lastBatchAt(t *testing.T, log string) int64 {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Records of these small batches are full records; walk the headers.
	var last int64 = -1
	for off := 0; off+walHeaderLen <= len(data); {
		if rest := walBlockLen - off%walBlockLen; rest < walHeaderLen {
			off += rest
			continue
		}
		n := int(data[off+4]) | int(data[off+5])<<8
		if data[off+6] == walFullType {
			last = int64(off)
		}
		off += walHeaderLen + n
	}
	if last < 0 {
		t.Fatalf("no full record in %s", log)
	}
	return last
}

// logFaults damage the newest non-empty write-ahead log.
var logFaults = []fault{
	{"log truncated to half", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		truncate(t, log, fileSize(t, log)/2)
	}},
	{"log cut inside its last record", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		truncate(t, log, fileSize(t, log)-10)
	}},
	{"log cut exactly before its last record", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		truncate(t, log, lastBatchAt(t, log))
	}},
	{"16 bytes flipped in the middle of the log", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		flip(t, log, fileSize(t, log)/2, 16)
	}},
	{"a byte flipped in the last record", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		flip(t, log, fileSize(t, log)-20, 1)
	}},
	{"the length of the last record flipped", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		flip(t, log, lastBatchAt(t, log)+5, 1)
	}},
	{"4 KiB zeroed in the middle of the log", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 1)
		writeAt(t, log, fileSize(t, log)/2, make([]byte, 4096))
	}},
	{"log removed", func(t *testing.T, p string) { remove(t, newest(t, p, "*.log", 1)) }},
	{"garbage appended to the log", func(t *testing.T, p string) {
		log := newest(t, p, "*.log", 0)
		writeAt(t, log, fileSize(t, log), bytes.Repeat([]byte("garbage!"), 8))
	}},
	{"sync mark damaged", func(t *testing.T, p string) {
		flip(t, filepath.Join(p, markFile), 0, markSlotLen)
		flip(t, filepath.Join(p, markFile), markStride, markSlotLen)
	}},
}

// tableFaults damage the table files and the MANIFEST of a closed store.
var tableFaults = []fault{
	{"64 bytes flipped in the middle of a table file", func(t *testing.T, p string) {
		sst := largest(t, p, "*.sst")
		flip(t, sst, fileSize(t, sst)/2, 64)
	}},
	{"table file truncated to half", func(t *testing.T, p string) {
		sst := largest(t, p, "*.sst")
		truncate(t, sst, fileSize(t, sst)/2)
	}},
	{"table file removed", func(t *testing.T, p string) { remove(t, largest(t, p, "*.sst")) }},
	{"MANIFEST truncated to half", func(t *testing.T, p string) {
		m := newest(t, p, "MANIFEST-*", 1)
		truncate(t, m, fileSize(t, m)/2)
	}},
	{"16 bytes flipped in the MANIFEST", func(t *testing.T, p string) {
		m := newest(t, p, "MANIFEST-*", 1)
		flip(t, m, fileSize(t, m)/2, 16)
	}},
	{"MANIFEST removed", func(t *testing.T, p string) { remove(t, newest(t, p, "MANIFEST-*", 1)) }},
}

func TestFaultLogDamageAfterCrash(t *testing.T) {
	t.Parallel()
	runFaults(t, crashedStore(t), logFaults, true)
}

// runFaults checks each fault on its own copy of the store at path, in
// parallel (see checkFault).
func runFaults(t *testing.T, path string, faults []fault, prefix bool) {
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			checkFault(t, copyStore(t, path), f, prefix)
		})
	}
}

// After a clean Close the rows are in table files and the log is empty, so
// damage to the log cannot lose them: the issue's own reproduction
// (truncating or flipping the log of a closed store) recovers whole.
func TestFaultLogDamageAfterClose(t *testing.T) {
	t.Parallel()
	closed := closedStore(t)
	if log := newest(t, closed, "*.log", 0); fileSize(t, log) != 0 {
		t.Fatalf("after Close, %s holds %d bytes", log, fileSize(t, log))
	}
	runFaults(t, closed, []fault{
		{"garbage written into the empty log", func(t *testing.T, p string) {
			writeAt(t, newest(t, p, "*.log", 0), 0, bytes.Repeat([]byte{0xa5}, 64))
		}},
		{"log removed", func(t *testing.T, p string) { remove(t, newest(t, p, "*.log", 0)) }},
		logFaults[len(logFaults)-1], // the sync mark
	}, false)
}

func TestFaultTableDamage(t *testing.T) {
	t.Parallel()
	runFaults(t, closedStore(t), tableFaults, false)
}

// checkFault damages the store at path and checks the outcome. prefix says
// the repaired store must hold a prefix of the batches (log damage, which
// recovery replays up to the damage); table damage drops whole files,
// whatever batches their rows belong to.
func checkFault(t *testing.T, path string, f fault, prefix bool) {
	f.damage(t, path)
	cfg := Config{Path: path, MemtableSize: testMemtableSize}
	e, err := Open(cfg)
	if err == nil {
		if n := readAll(t, e, prefix); n.absent > 0 {
			t.Errorf("%s: the store opens, but %d acknowledged batches are missing", f.name, n.absent)
		}
		return
	}
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("%s: Open = %v, want storage.ErrCorrupt or a store that opens whole", f.name, err)
	}
	var ce *CorruptError
	if strings.HasPrefix(f.name, "log") && !errors.As(err, &ce) {
		t.Errorf("%s: Open = %v, want a *CorruptError naming the log", f.name, err)
	}
	t.Logf("%s: Open refuses: %v", f.name, err)
	if e, err := Open(cfg); err == nil {
		e.Close()
		t.Fatalf("%s: a second Open accepted the store the first refused", f.name)
	}
	rep, err := Repair(path)
	if err != nil {
		t.Fatalf("%s: Repair: %v", f.name, err)
	}
	t.Logf("%s: repaired: %+v", f.name, rep)
	if rep.Damage == nil {
		t.Errorf("%s: Repair reports no damage", f.name)
	}
	e, err = Open(cfg)
	if err != nil {
		t.Fatalf("%s: Open after Repair: %v", f.name, err)
	}
	n := readAll(t, e, prefix)
	if prefix && uint64(n.absent)*4 != rep.DroppedWrites {
		t.Errorf("%s: %d batches (%d writes) missing after Repair, which reports %d writes dropped",
			f.name, n.absent, n.absent*4, rep.DroppedWrites)
	}
	if n.absent > 0 && rep.DroppedBatches == 0 && rep.DroppedWrites == 0 && len(rep.Lost) == 0 {
		t.Errorf("%s: %d batches missing after Repair, which reports nothing dropped", f.name, n.absent)
	}
}

// batchCount counts the batches of a store by what reading them found.
type batchCount struct {
	present int // whole
	absent  int // not there at all, or in part
	corrupt int // a read refused with storage.ErrCorrupt
}

// readAll reads every batch of the store, closes it, and counts them. A
// read of a table that cannot be read must say so with storage.ErrCorrupt,
// never yield a wrong value; if prefix, every batch must be whole or
// absent, and the present ones must be batches 1 to n.
func readAll(t *testing.T, e *Engine, prefix bool) batchCount {
	t.Helper()
	defer e.Close()
	var n batchCount
	firstAbsent := uint64(0)
	for id := uint64(1); id <= faultBatches; id++ {
		keys, values := crashBatch(id)
		rows, corrupt := 0, false
		for i, k := range keys {
			got, err := e.Get(k)
			switch {
			case err == nil && bytes.Equal(got, values[i]):
				rows++
			case err == nil:
				t.Fatalf("batch %d row %d: read %q, want %q", id, i, got, values[i])
			case errors.Is(err, storage.ErrCorrupt):
				corrupt = true
			case !errors.Is(err, storage.ErrNotFound):
				t.Fatalf("batch %d row %d: %v", id, i, err)
			}
		}
		switch {
		case corrupt:
			n.corrupt++
		case rows == len(keys):
			n.present++
			if prefix && firstAbsent != 0 {
				t.Errorf("batch %d is there after batch %d is not: not a prefix", id, firstAbsent)
			}
		default:
			n.absent++
			if rows > 0 && prefix {
				t.Errorf("batch %d is there in part: %d of %d rows", id, rows, len(keys))
			}
			if firstAbsent == 0 {
				firstAbsent = id
			}
		}
	}
	for _, cf := range storage.Families() {
		for _, err := range e.Scan(storage.TenantAll(crashScope, cf)) {
			if err != nil && !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("scan %s: %v", cf, err)
			}
		}
	}
	t.Logf("%d batches whole, %d absent, %d refused with storage.ErrCorrupt", n.present, n.absent, n.corrupt)
	return n
}
