package rocksdb_test

import (
	"testing"

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
