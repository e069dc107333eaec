package server

import (
	"os"
	"testing"

	_ "telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// TestMain runs the tests over the engine matrix (storagetest.EachEngine):
// memory, RocksDB, and etcd, which joins with the blank import of etcdtest.
func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
