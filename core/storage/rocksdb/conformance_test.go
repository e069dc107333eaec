package rocksdb_test

import (
	"testing"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, storagetest.Harness{
		New: func(t testing.TB) storage.Engine { return storagetest.OpenRocksDB(t, t.TempDir()) },
		OpenCheckpoint: func(t testing.TB, dir string) storage.Engine {
			// A checkpoint is opened as a restore would open it: every key
			// checked.
			cfg := storagetest.RocksDBConfig(dir)
			cfg.CreateIfMissing, cfg.VerifyKeys = false, true
			e, err := rocksdb.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		NewStore: func(t testing.TB) func(*rapid.T) storage.Engine {
			cfg := storagetest.RocksDBConfig(t.TempDir())
			return func(t *rapid.T) storage.Engine {
				e, err := rocksdb.Open(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
		},
		// A flush writes one family's memtable to a table file, so that
		// reads go through the table's prefix bloom and whole-key filters
		// too.
		Upkeep: map[string]func(*rapid.T, storage.Engine, storage.Snapshot) error{
			"flush": func(t *rapid.T, e storage.Engine, _ storage.Snapshot) error {
				cf := rapid.SampledFrom(storage.Families()).Draw(t, "family")
				if err := rocksdb.FlushFamily(e.(*rocksdb.Engine), cf); err != nil {
					t.Fatal(err)
				}
				return nil
			},
		},
	})
}

// TestWriteDurableUnderClose writes durably from many goroutines while the
// engine closes: every call returns nil or storage.ErrClosed, none hangs,
// and the reopened store holds exactly the acknowledged batches.
func TestWriteDurableUnderClose(t *testing.T) {
	dir := t.TempDir()
	storagetest.WritesRacingClose(t, storagetest.OpenRocksDB(t, dir), func() storage.Engine {
		return storagetest.OpenRocksDB(t, dir)
	})
}
