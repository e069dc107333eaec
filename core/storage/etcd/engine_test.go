package etcd_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// The tests of this package run one at a time (none calls t.Parallel):
// some compact the shared cluster, which would break another test's
// snapshot.

// TestLimits writes at the cluster's limits and one step past them: the
// longest key with the largest value, a batch of MaxTxnOps keys, and a
// batch that fits every limit but its request size. What is refused is
// refused whole, with a typed error, and the store is unchanged.
func TestLimits(t *testing.T) {
	cfg := etcdtest.Config(t)
	e := openConfig(t, cfg)
	s := storagetest.TenantScope(t)
	longest := storage.AdjacencyOutKey(s, uuid.Max, ^storage.EdgeTypeHash(0), storage.MaxTimestamp, storage.MinTimestamp, uuid.Max)
	if longest.Len() != storage.MaxKeyLen {
		t.Fatalf("the adjacency key is %d bytes, not MaxKeyLen", longest.Len())
	}
	n := e.MaxValueLen(longest)
	if n < cfg.MaxRequestBytes-200 {
		t.Fatalf("MaxValueLen = %d, far below the request limit %d", n, cfg.MaxRequestBytes)
	}
	largest := bytes.Repeat([]byte{0xab}, n)
	if err := e.Put(longest, largest); err != nil {
		t.Fatalf("Put of a value of MaxValueLen: %v", err)
	}
	wantErr(t, "Put of a value of MaxValueLen+1", e.Put(longest, append(largest, 1)), storage.ErrValueTooLarge)
	var b storage.Batch
	b.Put(nodeKey(s, uuid.New(), 0), []byte("small"))
	b.Put(longest, append(largest, 1))
	wantErr(t, "Write of a batch holding a value of MaxValueLen+1", e.Write(&b), storage.ErrValueTooLarge)
	if v, err := e.Get(longest); err != nil || !bytes.Equal(v, largest) {
		t.Fatalf("after the refused writes: Get = %d bytes, %v; want the value of MaxValueLen", len(v), err)
	}

	nodes := storage.TenantAll(s, storage.NodeVersions)
	id := uuid.New()
	b.Reset()
	for v := range cfg.MaxTxnOps {
		b.Put(nodeKey(s, id, v), nil)
	}
	b.Put(nodeKey(s, id, cfg.MaxTxnOps), nil)
	wantErr(t, "Write of MaxTxnOps+1 keys", e.WriteDurable(&b), etcd.ErrBatchTooLarge)
	if rows := mustRows(t, e, nodes); len(rows) != 0 {
		t.Fatalf("a refused batch left %d rows", len(rows))
	}
	// Mutations of one key count once: MaxTxnOps keys, most written twice.
	b.Reset()
	for v := range cfg.MaxTxnOps {
		b.Put(nodeKey(s, id, v), nil)
	}
	for v := range cfg.MaxTxnOps - 2 {
		b.Delete(nodeKey(s, id, v))
	}
	if err := e.Write(&b); err != nil {
		t.Fatalf("Write of %d mutations of MaxTxnOps keys: %v", b.Len(), err)
	}
	if rows := mustRows(t, e, nodes); len(rows) != 2 {
		t.Fatalf("after the batch: %d rows, want 2", len(rows))
	}

	// Each value fits alone; together they exceed the request size.
	b.Reset()
	half := make([]byte, n/2+1)
	b.Put(nodeKey(s, id, 1), half)
	b.Put(nodeKey(s, id, 2), half)
	wantErr(t, "Write of two values over the request size together", e.Write(&b), etcd.ErrBatchTooLarge)
	if v, err := e.Get(nodeKey(s, id, 2)); err == nil {
		t.Fatalf("a refused batch wrote a %d-byte value", len(v))
	}
}

// TestClusterRefusal gives an engine limits above the cluster's: the
// cluster refuses what the engine let through, and the refusal arrives as
// the same typed error.
func TestClusterRefusal(t *testing.T) {
	cfg := etcdtest.Config(t)
	cfg.MaxTxnOps *= 2
	cfg.MaxRequestBytes *= 4
	e := openConfig(t, cfg)
	s := storagetest.TenantScope(t)
	var b storage.Batch
	for v := range etcdtest.MaxTxnOps + 1 {
		b.Put(nodeKey(s, uuid.Nil, v), nil)
	}
	wantErr(t, "Write of more keys than the cluster allows", e.Write(&b), etcd.ErrBatchTooLarge)
	k := nodeKey(s, uuid.New(), 0)
	for _, size := range []int{etcdtest.MaxRequestBytes + 1, 3 * etcdtest.MaxRequestBytes} {
		wantErr(t, "Put of a value over the cluster's request limit", e.Put(k, make([]byte, size)), etcd.ErrBatchTooLarge)
	}
	if rows := mustRows(t, e, storage.TenantAll(s, storage.NodeVersions)); len(rows) != 0 {
		t.Fatalf("refused writes left %d rows", len(rows))
	}
}

// TestNamespaces runs engines whose namespaces are prefixes of each other,
// and one on the empty namespace, on one cluster: each sees only its own
// rows, whatever the others write and delete.
func TestNamespaces(t *testing.T) {
	base := etcdtest.Config(t)
	var engines []*etcd.Engine
	for _, ns := range []string{base.Namespace, base.Namespace + "x", base.Namespace + "x/", ""} {
		cfg := base
		cfg.Namespace = ns
		engines = append(engines, openConfig(t, cfg))
	}
	empty := engines[len(engines)-1]
	t.Cleanup(func() {
		for _, cf := range storage.Families() {
			if err := empty.DeleteRange(storage.SystemScope{}.FullFamily(cf)); err != nil {
				t.Error(err)
			}
		}
	})
	s := storagetest.TenantScope(t)
	keys := []storage.Key{
		nodeKey(s, uuid.Nil, 0),
		storage.TraceKey(s, uuid.Max),
		storage.SystemScope{}.JobKey(storage.JobQueued, 0, 0, uuid.Max),
		storage.SystemScope{}.JobKey(storage.JobDead, 0xff, storage.MaxTimestamp, uuid.Max),
	}
	for i, e := range engines {
		for _, k := range keys {
			if err := e.Put(k, []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(what string, present []bool) {
		t.Helper()
		for i, e := range engines {
			var n int
			for _, cf := range storage.Families() {
				for _, kv := range mustRows(t, e, storage.SystemScope{}.FullFamily(cf)) {
					if !bytes.Equal(kv.Value, []byte{byte(i)}) {
						t.Errorf("%s: engine %d read a row of engine %d", what, i, kv.Value[0])
					}
					n++
				}
			}
			if want := map[bool]int{true: len(keys)}[present[i]]; n != want {
				t.Errorf("%s: engine %d holds %d rows, want %d", what, i, n, want)
			}
		}
	}
	check("after writes", []bool{true, true, true, true})
	for _, i := range []int{0, 3} {
		for _, cf := range storage.Families() {
			if err := engines[i].DeleteRange(storage.SystemScope{}.FullFamily(cf)); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after two engines deleted every family", []bool{false, true, true, false})
}

// TestCompaction compacts the cluster under a snapshot and under a scan
// paused in its loop body: both read ErrCompacted, after yielding only
// rows of their own revision; a new snapshot reads again.
func TestCompaction(t *testing.T) {
	cfg := etcdtest.Config(t)
	cfg.PageSize = 2
	e := openConfig(t, cfg)
	s := storagetest.TenantScope(t)
	r := putNodes(t, e, s, 6)
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	want := mustRows(t, snap, r)

	var seen []storage.KV
	var scanErr error
	for kv, err := range e.Scan(r) {
		if err != nil {
			scanErr = err
			break
		}
		seen = append(seen, kv)
		if len(seen) == 1 {
			if err := e.Put(nodeKey(s, uuid.New(), 0), nil); err != nil {
				t.Fatal(err)
			}
			compactNow(t, rawClient(t, cfg))
		}
	}
	wantErr(t, "a scan whose revision was compacted in its loop body", scanErr, etcd.ErrCompacted)
	if len(seen) != cfg.PageSize || !sameRows(seen, want[:cfg.PageSize]) {
		t.Errorf("the compacted scan yielded %d rows before its error, want its first page of %d", len(seen), cfg.PageSize)
	}
	_, err = snap.Get(nodeKey(s, uuid.Nil, 0))
	wantErr(t, "Get of a compacted snapshot", err, etcd.ErrCompacted)
	rows, err := storagetest.ScanLimit(snap, r, 0)
	wantErr(t, "Scan of a compacted snapshot", err, etcd.ErrCompacted)
	if len(rows) != 0 {
		t.Errorf("a compacted snapshot's scan yielded %d rows", len(rows))
	}
	fresh, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if rows := mustRows(t, fresh, r); !sameRows(rows, want) {
		t.Errorf("a snapshot after compaction reads %d rows, want %d", len(rows), len(want))
	}
}

// TestScanPagesAreOneRevision writes, from the loop body of a scan that
// reads in pages of one row, into the rows the scan has not reached: new
// rows between them, deletions and overwrites. The scan still yields
// exactly the rows of its start.
func TestScanPagesAreOneRevision(t *testing.T) {
	cfg := etcdtest.Config(t)
	cfg.PageSize = 1
	e := openConfig(t, cfg)
	s := storagetest.TenantScope(t)
	id := uuid.New()
	var b storage.Batch
	for v := 0; v < 20; v += 2 {
		b.Put(nodeKey(s, id, v), []byte{byte(v)})
	}
	if err := e.Write(&b); err != nil {
		t.Fatal(err)
	}
	r := storage.NodeHistory(s, id)
	want := mustRows(t, e, r)
	var got []storage.KV
	for kv, err := range e.Scan(r) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, kv)
		var b storage.Batch
		for v := range 20 {
			if v%2 == 1 {
				b.Put(nodeKey(s, id, v), []byte("inserted"))
			} else if v%4 == 0 {
				b.Delete(nodeKey(s, id, v))
			} else {
				b.Put(nodeKey(s, id, v), []byte("overwritten"))
			}
		}
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	if !sameRows(got, want) {
		t.Errorf("a paged scan saw its loop body's writes: %d rows, want the %d of its start", len(got), len(want))
	}
}

// TestCloseDuringScan closes the engine, or the snapshot, from the loop
// body of a scan that has pages left: the scan's next element is
// storage.ErrClosed, and nothing hangs.
func TestCloseDuringScan(t *testing.T) {
	for _, closeSnapshot := range []bool{false, true} {
		cfg := etcdtest.Config(t)
		cfg.PageSize = 2
		e := openConfig(t, cfg)
		r := putNodes(t, e, storagetest.TenantScope(t), 10)
		snap, err := e.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var rd storage.Reader = e
		closer := e.Close
		if closeSnapshot {
			rd, closer = snap, snap.Close
		}
		var n int
		var scanErr error
		for _, err := range rd.Scan(r) {
			if err != nil {
				scanErr = err
				break
			}
			if n++; n == 1 {
				if err := closer(); err != nil {
					t.Fatal(err)
				}
			}
		}
		wantErr(t, "the scan after Close in its loop body", scanErr, storage.ErrClosed)
		if n != 1 {
			t.Errorf("the scan yielded %d rows, want 1 before Close", n)
		}
		_, err = snap.Get(nodeKey(storagetest.TenantScope(t), uuid.Nil, 0))
		wantErr(t, "Get of the snapshot", err, storage.ErrClosed)
	}
}

// TestCloseDuringCalls closes the engine while goroutines call it: every
// call returns, with its answer or storage.ErrClosed, never another error.
func TestCloseDuringCalls(t *testing.T) {
	e := etcdtest.Engine(t)
	s := storagetest.TenantScope(t)
	r := putNodes(t, e, s, 50)
	calls := []func(i int) error{
		func(i int) error { return e.Put(nodeKey(s, uuid.New(), i), []byte("x")) },
		func(i int) error { _, err := e.Get(nodeKey(s, uuid.Nil, i)); return err },
		func(int) error { _, err := storagetest.ScanLimit(e, r, 0); return err },
		func(int) error {
			snap, err := e.Snapshot()
			if err != nil {
				return err
			}
			_, err = storagetest.ScanLimit(snap, r, 0)
			return errors.Join(err, snap.Close())
		},
		func(int) error { return e.DeleteRange(storage.NodeHistory(s, uuid.New())) },
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(calls))
	for range 2 {
		for _, call := range calls {
			wg.Go(func() {
				for i := 0; ; i++ {
					if err := call(i); err != nil && !errors.Is(err, storage.ErrNotFound) {
						errs <- err
						return
					}
				}
			})
		}
	}
	time.Sleep(200 * time.Millisecond)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(etcdtest.Timeout):
		t.Fatal("calls in flight did not return after Close")
	}
	close(errs)
	for err := range errs {
		wantErr(t, "a call ended by Close", err, storage.ErrClosed)
	}
}

// TestWritesRacingClose writes from many goroutines while the engine
// closes: a write that reports storage.ErrClosed was never applied, and
// every acknowledged write is there, when the namespace opens again.
// (Close once cancelled writes in flight, which the cluster could commit
// after their caller had been told ErrClosed.)
func TestWritesRacingClose(t *testing.T) {
	cfg := etcdtest.Config(t)
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	storagetest.WritesRacingClose(t, e, func() storage.Engine { return openConfig(t, cfg) })
}

// TestUnavailable opens an engine on endpoints where nothing listens: Open
// fails with ErrUnavailable within its timeout.
func TestUnavailable(t *testing.T) {
	const timeout = time.Second
	start := time.Now()
	_, err := etcd.Open(etcd.Config{Endpoints: []string{deadEndpoint(t), deadEndpoint(t)}, Timeout: timeout})
	wantErr(t, "Open without a cluster", err, etcd.ErrUnavailable)
	if elapsed := time.Since(start); elapsed > timeout+5*time.Second {
		t.Errorf("Open without a cluster took %v with a timeout of %v", elapsed, timeout)
	}
}

// TestConfig refuses configurations that cannot work.
func TestConfig(t *testing.T) {
	good := etcdtest.Config(t)
	for name, edit := range map[string]func(*etcd.Config){
		"no endpoints":             func(c *etcd.Config) { c.Endpoints = nil },
		"namespace with a space":   func(c *etcd.Config) { c.Namespace = "a b" },
		"namespace with a NUL":     func(c *etcd.Config) { c.Namespace = "a\x00" },
		"negative timeout":         func(c *etcd.Config) { c.Timeout = -time.Second },
		"negative MaxTxnOps":       func(c *etcd.Config) { c.MaxTxnOps = -1 },
		"negative MaxRequestBytes": func(c *etcd.Config) { c.MaxRequestBytes = -1 },
		"negative PageSize":        func(c *etcd.Config) { c.PageSize = -1 },
	} {
		cfg := good
		edit(&cfg)
		if e, err := etcd.Open(cfg); err == nil {
			e.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
}
