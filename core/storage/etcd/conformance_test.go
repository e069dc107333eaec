package etcd_test

import (
	"testing"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

func TestMain(m *testing.M) { etcdtest.Main(m) }

// TestConformance runs the conformance suite, unchanged, on a real
// three-member cluster: each engine is a fresh namespace of the shared
// cluster, and a checkpoint opens by Restore into another. The model test
// opens its namespace again with a page size of one to three rows or the
// default, and compacts the cluster, which ends a snapshot taken before
// with ErrCompacted where the memory engine has no such notion.
func TestConformance(t *testing.T) {
	raw := rawClient(t, etcdtest.Config(t))
	storagetest.Run(t, storagetest.Harness{
		New: func(t testing.TB) storage.Engine { return etcdtest.Engine(t) },
		OpenCheckpoint: func(t testing.TB, dir string) storage.Engine {
			e, err := etcd.Restore(etcdtest.Config(t), dir)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		NewStore: func(t testing.TB) func(*rapid.T) storage.Engine {
			cfg := etcdtest.Config(t)
			return func(t *rapid.T) storage.Engine {
				cfg.PageSize = rapid.SampledFrom([]int{1, 2, 3, 0}).Draw(t, "page size")
				e, err := etcd.Open(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
		},
		Upkeep: map[string]func(*rapid.T, storage.Engine, storage.Snapshot) error{
			"compact": func(t *rapid.T, _ storage.Engine, snap storage.Snapshot) error {
				if rev := compactNow(t, raw); snap != nil && snap.(*etcd.Snapshot).Revision() < rev {
					return etcd.ErrCompacted
				}
				return nil
			},
		},
		Remote: true, // run after every step, the full comparison would triple the requests
	})
}
