package jobqueue_test

import (
	"bytes"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/jobqueue"
)

// badJobRows are hand-made rows of the jobs family that no constructor
// writes: a tenant key of the wrong length, a tenant key with an unknown
// state byte, a key with a half-nil scope, and a system key of the wrong
// length that lies inside the system's leased range.
func badJobRows(t *testing.T, tenant storage.TenantScope) []storage.KV {
	t.Helper()
	good := storage.JobKey(tenant, storage.JobLeased, 0, 5, uuid.UUID{9}).Bytes()
	wrongLength := slices.Clone(good[:40])
	unknownState := slices.Clone(good)
	unknownState[storage.ScopeLen] = 0x09
	halfNil := slices.Clone(good)
	clear(halfNil[:16])
	system := make([]byte, storage.ScopeLen+3)
	system[storage.ScopeLen] = byte(storage.JobLeased)
	return []storage.KV{
		{Key: wrongLength, Value: []byte("bad")},
		{Key: unknownState, Value: []byte("bad")},
		{Key: halfNil, Value: []byte("bad")},
		{Key: system, Value: []byte("bad")},
	}
}

// putRawJobs writes rows into the jobs family of the closed RocksDB store
// at path with the binding itself, bypassing the engine's checks, as
// damage or another program could.
func putRawJobs(t *testing.T, path string, rows []storage.KV) {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names, err := grocksdb.ListColumnFamilies(opts, path)
	if err != nil {
		t.Fatal(err)
	}
	familyOpts := make([]*grocksdb.Options, len(names))
	for i := range names {
		if familyOpts[i], err = grocksdb.GetOptionsFromString(opts, "prefix_extractor=rocksdb.FixedPrefix.32"); err != nil {
			t.Fatal(err)
		}
		defer familyOpts[i].Destroy()
	}
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, path, names, familyOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer func() {
		for _, h := range handles {
			h.Destroy()
		}
	}()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.SetSync(true)
	jobs := slices.Index(names, storage.Jobs.String())
	for _, kv := range rows {
		if err := db.PutCF(wo, handles[jobs], kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
}

// injected is a reader whose scans also yield hand-made rows, in key order,
// where the range holds them: bad rows on an engine that refuses to store
// them.
type injected struct {
	storage.Reader
	rows []storage.KV // sorted by key
}

func (in injected) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) {
		lower, upper := r.Bounds()
		extra := slices.DeleteFunc(slices.Clone(in.rows), func(kv storage.KV) bool {
			return r.Family() != storage.Jobs || bytes.Compare(kv.Key, lower) < 0 || (upper != nil && bytes.Compare(kv.Key, upper) >= 0)
		})
		for kv, err := range in.Reader.Scan(r) {
			for err == nil && len(extra) > 0 && bytes.Compare(extra[0].Key, kv.Key) < 0 {
				if !yield(extra[0], nil) {
					return
				}
				extra = extra[1:]
			}
			if !yield(kv, err) || err != nil {
				return
			}
		}
		for _, kv := range extra {
			if !yield(kv, nil) {
				return
			}
		}
	}
}

// TestSweepSkipsBadRows puts undecodable rows among the jobs of two
// tenants and the system queue: the sweep and the system poll step over
// them, report each one, and still find every good row.
func TestSweepSkipsBadRows(t *testing.T) {
	t1, t2 := jobTenant(t, 1), jobTenant(t, 2)
	bad := badJobRows(t, t1)
	slices.SortFunc(bad, func(a, b storage.KV) int { return bytes.Compare(a.Key, b.Key) })
	writeGood := func(t *testing.T, e storage.Engine) {
		t.Helper()
		for i, s := range []storage.TenantScope{t1, t2} {
			if err := e.Put(storage.JobKey(s, storage.JobLeased, 1, storage.Timestamp(i), uuid.UUID{1}), []byte("tenant")); err != nil {
				t.Fatal(err)
			}
		}
		sys := jobqueue.JobMove{JobAddr: jobqueue.JobAddr{Priority: 1, Created: 1, ID: uuid.UUID{1}}, To: storage.JobLeased, Value: []byte("system")}
		if err := jobqueue.WriteJobs(e, true, sys); err != nil {
			t.Fatal(err)
		}
	}
	readers := map[string]func(t *testing.T) storage.Reader{
		"memory with injected rows": func(t *testing.T) storage.Reader {
			e := storage.NewMemoryEngine()
			writeGood(t, e)
			return injected{Reader: e, rows: bad}
		},
		"rocksdb with raw rows": func(t *testing.T) storage.Reader {
			dir := t.TempDir()
			e := storagetest.OpenRocksDB(t, dir)
			writeGood(t, e)
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			putRawJobs(t, dir, bad)
			return storagetest.OpenRocksDB(t, dir)
		},
	}
	for name, open := range readers {
		t.Run(name, func(t *testing.T) {
			r := open(t)
			leased, skipped, err := jobqueue.SweepLeases(r, func([]byte) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			var values []string
			for _, j := range leased {
				values = append(values, string(j.Value))
			}
			if !slices.Equal(values, []string{"system", "tenant", "tenant"}) {
				t.Errorf("swept %q, want the system job and both tenants' jobs", values)
			}
			var keys [][]byte
			for _, b := range skipped {
				keys = append(keys, b.Key)
				if b.Cause == nil {
					t.Errorf("bad row %x without a cause", b.Key)
				}
			}
			if !slices.EqualFunc(keys, bad, func(k []byte, kv storage.KV) bool { return bytes.Equal(k, kv.Key) }) {
				t.Errorf("sweep reported %x, want the %d bad rows", keys, len(bad))
			}

			var got []string
			var reported []*jobqueue.BadRow
			for row, err := range jobqueue.PollJobs(r, storage.JobLeased, nil) {
				var b *jobqueue.BadRow
				switch {
				case errors.As(err, &b):
					reported = append(reported, b)
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, string(row.Value))
				}
			}
			if !slices.Equal(got, []string{"system"}) || len(reported) != 1 || !errors.Is(reported[0], storage.ErrWrongLength) {
				t.Errorf("system poll: rows %q, bad rows %v; want the system job and one bad row", got, reported)
			}
		})
	}
}
