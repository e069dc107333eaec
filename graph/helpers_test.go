package graph

import (
	"sort"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

func fixedClock() *temporal.Clock {
	return temporal.NewClock(func() storage.Timestamp { return 1000 })
}

func always() temporal.Interval { return temporal.Interval{Start: 0, End: temporal.Forever} }

func node(n int) uuid.UUID { return storagetest.ID(n) }

func addNodes(t testing.TB, g *Graph, scope storage.TenantScope, ids ...int) {
	t.Helper()
	for _, n := range ids {
		if _, err := g.Store().AssertNode(scope, temporal.NodeFact{ID: node(n), Valid: always()}); err != nil {
			t.Fatal(err)
		}
	}
}

// addEdge adds edge 100000+from*1000+to of type typ.
func addEdge(t testing.TB, g *Graph, scope storage.TenantScope, from, to int, typ string, iv temporal.Interval) uuid.UUID {
	t.Helper()
	id := storagetest.ID(100_000 + from*1000 + to)
	if _, err := g.Store().AssertEdge(scope, temporal.EdgeFact{ID: id, From: node(from), To: node(to), Type: typ, Valid: iv}); err != nil {
		t.Fatalf("edge %d->%d: %v", from, to, err)
	}
	return id
}

// numbers maps node ids back to the small numbers of node(n), sorted.
func numbers(ids []uuid.UUID) []int {
	out := make([]int, 0, len(ids))
	for _, id := range ids {
		out = append(out, int(id[8])<<24|int(id[9])<<16|int(id[10])<<8|int(id[11]))
	}
	sort.Ints(out)
	return out
}

type storageScope = storage.TenantScope

func storageTime(t int64) storage.Timestamp { return storage.Timestamp(t) }
