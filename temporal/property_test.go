package temporal

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// fact is one write as the brute-force model sees it.
type fact struct {
	tx   storage.Timestamp
	iv   Interval
	name string // "" for a delete
}

// model answers as-of reads by brute force: the answer at (T, S) is the
// latest write with tx <= S whose interval contains T. It knows nothing of
// version records, closing or remainders. Nodes are keys 0..propertyNodes-1,
// edges keys edgeKey(k).
type model map[int][]fact

func (m model) asOf(key int, a AsOf) string {
	fs := m[key]
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].tx <= a.Tx && fs[i].iv.Contains(a.Valid) {
			return fs[i].name
		}
	}
	return ""
}

const (
	propertyNodes = 4
	propertyEdges = 6
)

// Edge k of the property test has fixed endpoints (self loops included).
func edgeFrom(k int) int { return k % propertyNodes }
func edgeTo(k int) int   { return (k*3 + 1) % propertyNodes }
func edgeKey(k int) int  { return 100 + k }

// TestBitemporalProperty applies random assertions, corrections and
// deletes and compares every as-of read, and the global valid-time scan,
// with the brute-force model. One engine of each kind serves all checks;
// each check uses a fresh tenant, which isolation makes equivalent to a
// fresh store.
func TestBitemporalProperty(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		storagetest.Check(t, env, func(rt *rapid.T) {
			checkBitemporal(rt, env.Engine, storagetest.TenantScope(t))
		})
	})
}

func checkBitemporal(rt *rapid.T, e storage.Engine, scope storage.TenantScope) {
	s := Open(e, Options{Clock: NewClock(newWall(1000).now)})
	m := model{}
	times := rapid.Int64Range(0, 60)
	var txs []storage.Timestamp
	rt.Repeat(map[string]func(*rapid.T){
		"assert": func(rt *rapid.T) {
			node := rapid.IntRange(0, propertyNodes-1).Draw(rt, "node")
			start := times.Draw(rt, "start")
			iv := Interval{storage.Timestamp(start), drawEnd(rt, start)}
			name := fmt.Sprintf("n%d", rapid.IntRange(0, 99).Draw(rt, "name"))
			tx, err := s.AssertNode(scope, NodeFact{ID: storagetest.ID(node), Valid: iv, Props: Properties{"name": String(name)}})
			if err != nil {
				rt.Fatalf("assert: %v", err)
			}
			m[node] = append(m[node], fact{tx, iv, name})
			txs = append(txs, tx)
		},
		"delete": func(rt *rapid.T) {
			node := rapid.IntRange(0, propertyNodes-1).Draw(rt, "node")
			from := storage.Timestamp(times.Draw(rt, "from"))
			tx, err := s.DeleteNode(scope, storagetest.ID(node), from)
			if len(m[node]) == 0 {
				if !errors.Is(err, ErrUnknownNode) {
					rt.Fatalf("delete of unknown node: %v", err)
				}
				return
			}
			if err != nil {
				rt.Fatalf("delete: %v", err)
			}
			m[node] = append(m[node], fact{tx, Interval{from, Forever}, ""})
			// The cascade ends every edge of the node. It writes each at
			// its own tick just below tx, which no read of this test falls
			// between, so the model records them at tx.
			for k := range propertyEdges {
				if edgeFrom(k) == node || edgeTo(k) == node {
					m[edgeKey(k)] = append(m[edgeKey(k)], fact{tx, Interval{from, Forever}, ""})
				}
			}
			txs = append(txs, tx)
		},
		"edge": func(rt *rapid.T) {
			k := rapid.IntRange(0, propertyEdges-1).Draw(rt, "edge")
			start := times.Draw(rt, "start")
			iv := Interval{storage.Timestamp(start), drawEnd(rt, start)}
			name := fmt.Sprintf("e%d", rapid.IntRange(0, 99).Draw(rt, "name"))
			f := EdgeFact{ID: storagetest.ID(edgeKey(k)), From: storagetest.ID(edgeFrom(k)), To: storagetest.ID(edgeTo(k)),
				Type: "T", Valid: iv, Props: Properties{"name": String(name)}}
			tx, err := s.AssertEdge(scope, f)
			if len(m[edgeFrom(k)]) == 0 || len(m[edgeTo(k)]) == 0 {
				if !errors.Is(err, ErrUnknownNode) {
					rt.Fatalf("edge to unknown node: %v", err)
				}
				return
			}
			if err != nil {
				rt.Fatalf("edge: %v", err)
			}
			m[edgeKey(k)] = append(m[edgeKey(k)], fact{tx, iv, name})
			txs = append(txs, tx)
		},
		"read": func(rt *rapid.T) {
			node := rapid.IntRange(0, propertyNodes-1).Draw(rt, "node")
			a := AsOf{storage.Timestamp(times.Draw(rt, "valid")), drawTx(rt, txs)}
			compareRead(rt, s, scope, m, node, a)
		},
		"scan": func(rt *rapid.T) {
			a := AsOf{storage.Timestamp(times.Draw(rt, "valid")), drawTx(rt, txs)}
			compareScan(rt, s, scope, m, a, rapid.IntRange(1, 5).Draw(rt, "page"))
		},
	})
	// Finally every read on the grid of all valid-time boundaries and a few
	// transaction times (all of them would make the suite slow under -race;
	// the "read" action samples the others).
	valids := []storage.Timestamp{0, 60, 100}
	for _, fs := range m {
		for _, f := range fs {
			valids = append(valids, f.iv.Start, f.iv.End-1)
		}
	}
	slices.Sort(valids)
	valids = slices.Compact(valids)
	grid := []storage.Timestamp{999, Forever}
	if len(txs) > 0 {
		for range 4 {
			grid = append(grid, rapid.SampledFrom(txs).Draw(rt, "grid tx"))
		}
	}
	for _, tx := range grid {
		for _, v := range valids {
			a := AsOf{v, tx}
			for node := range propertyNodes {
				compareRead(rt, s, scope, m, node, a)
				compareAdjacency(rt, s, scope, m, node, a)
			}
			for k := range propertyEdges {
				compareEdge(rt, s, scope, m, k, a)
			}
		}
	}
}

func compareRead(rt *rapid.T, s *Store, scope storage.TenantScope, m model, node int, a AsOf) {
	want := m.asOf(node, a)
	got := ""
	v, err := s.NodeAsOf(scope, storagetest.ID(node), a)
	switch {
	case err == nil:
		got = v.Props["name"].Str
		if !v.Valid.Contains(a.Valid) || !v.knownAt(a.Tx) {
			rt.Fatalf("node %d as of %+v returned version %+v", node, a, v)
		}
	case !errors.Is(err, ErrNotFound):
		rt.Fatalf("node %d as of %+v: %v", node, a, err)
	}
	if got != want {
		rt.Fatalf("node %d as of valid %d tx %d: got %q, model %q", node, a.Valid, a.Tx, got, want)
	}
}

func compareScan(rt *rapid.T, s *Store, scope storage.TenantScope, m model, a AsOf, page int) {
	want := map[string]bool{}
	for key := range m {
		if name := m.asOf(key, a); name != "" {
			want[fmt.Sprintf("%s=%s", storagetest.ID(key), name)] = true
		}
	}
	got := map[string]bool{}
	var cursor Cursor
	for {
		p, err := s.ValidAt(scope, a, cursor, page)
		if err != nil {
			rt.Fatalf("valid at %+v: %v", a, err)
		}
		for _, v := range p.Versions {
			k := fmt.Sprintf("%s=%s", v.ID, v.Props["name"].Str)
			if got[k] {
				rt.Fatalf("valid at %+v: duplicate %s", a, k)
			}
			got[k] = true
		}
		if p.Done {
			break
		}
		cursor = p.Next
	}
	if len(got) != len(want) {
		rt.Fatalf("valid at %+v: got %v, model %v", a, got, want)
	}
	for k := range want {
		if !got[k] {
			rt.Fatalf("valid at %+v: missing %s; got %v", a, k, got)
		}
	}
}

func compareEdge(rt *rapid.T, s *Store, scope storage.TenantScope, m model, k int, a AsOf) {
	want := m.asOf(edgeKey(k), a)
	got := ""
	v, err := s.EdgeAsOf(scope, storagetest.ID(edgeKey(k)), a)
	switch {
	case err == nil:
		got = v.Props["name"].Str
	case !errors.Is(err, ErrNotFound):
		rt.Fatalf("edge %d as of %+v: %v", k, a, err)
	}
	if got != want {
		rt.Fatalf("edge %d as of valid %d tx %d: got %q, model %q", k, a.Valid, a.Tx, got, want)
	}
}

// compareAdjacency checks both adjacency directions of node against the
// edges the model says are alive.
func compareAdjacency(rt *rapid.T, s *Store, scope storage.TenantScope, m model, node int, a AsOf) {
	for _, dir := range []Direction{Out, In} {
		want := map[string]bool{}
		for k := range propertyEdges {
			end := edgeFrom(k)
			if dir == In {
				end = edgeTo(k)
			}
			if end == node && m.asOf(edgeKey(k), a) != "" {
				want[storagetest.ID(edgeKey(k)).String()] = true
			}
		}
		adj, err := s.Adjacent(scope, storagetest.ID(node), dir, nil, a)
		if err != nil {
			rt.Fatalf("adjacent %s of %d: %v", dir, node, err)
		}
		if len(adj) != len(want) {
			rt.Fatalf("adjacent %s of node %d as of valid %d tx %d: %d rows %+v, model %v", dir, node, a.Valid, a.Tx, len(adj), adj, want)
		}
		for _, x := range adj {
			if !want[x.Edge.String()] {
				rt.Fatalf("adjacent %s of node %d as of %+v: unexpected edge %s", dir, node, a, x.Edge)
			}
		}
	}
}

// drawEnd draws a valid end after start, up to 60, or Forever.
func drawEnd(rt *rapid.T, start int64) storage.Timestamp {
	end := rapid.Int64Range(start+1, 61).Draw(rt, "end")
	if end == 61 {
		return Forever
	}
	return storage.Timestamp(end)
}

// drawTx draws a transaction time to read at: one a write returned, or one
// before every write, or Forever. A node delete also writes its edges'
// tombstones at ticks just below its own; those are internal to one atomic
// write and no read of this test stands on them.
func drawTx(rt *rapid.T, txs []storage.Timestamp) storage.Timestamp {
	return rapid.SampledFrom(append([]storage.Timestamp{999, Forever}, txs...)).Draw(rt, "tx")
}
