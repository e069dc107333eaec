package lifecycle

import (
	"os"
	"testing"

	_ "telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// TestMain runs the tests that use the engine matrix (storagetest.EachEngine)
// and then stops what its engine kinds share. The etcd engine, of another
// module, joins this package's matrix with the blank import of etcdtest.
func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
