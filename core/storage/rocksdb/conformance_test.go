package rocksdb

import (
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, storagetest.Harness{
		New: func(t testing.TB) storage.Engine {
			e, err := Open(testConfig(t))
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		OpenCheckpoint: func(t testing.TB, dir string) storage.Engine {
			// A checkpoint is opened as a restore would open it: every key
			// checked.
			e, err := Open(Config{Path: dir, MemtableSize: testMemtableSize, VerifyKeys: true})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
	})
}
