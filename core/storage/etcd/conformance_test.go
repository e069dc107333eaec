package etcd_test

import (
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

func TestMain(m *testing.M) { etcdtest.Main(m) }

// TestConformance runs the conformance suite, unchanged, on a real
// three-member cluster: each engine is a fresh namespace of the shared
// cluster, and a checkpoint opens by Restore into another.
func TestConformance(t *testing.T) {
	storagetest.Run(t, storagetest.Harness{
		New: func(t testing.TB) storage.Engine { return etcdtest.Engine(t) },
		OpenCheckpoint: func(t testing.TB, dir string) storage.Engine {
			e, err := etcd.Restore(etcdtest.Config(t), dir)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
	})
}
