package lifecycle

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/sources"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// graph is a small graph in one tenant written through the subsystems:
// nodes a (the one erased), b and c; edges a->b, c->a and b->c; a vector
// of a and of b; every node indexed in the bitmap index under "Person";
// one document whose spans produced them (provenance).
type graph struct {
	scope      storage.TenantScope
	a, b, c    uuid.UUID
	ab, ca, bc uuid.UUID // the edges
	doc        uuid.UUID // the blob the facts came from
	store      *temporal.Store
	vectors    *vector.Store
	index      *bitmap.Index
}

// graphText is the document of a graph. It holds no marker: an entity
// erasure erases the entity's provenance, not the documents it came from.
const graphText = "Alice knows Bob; Carol knows Alice; Bob knows Carol."

// graphSpans are the spans of graphText and the facts each produced, for
// a graph g: some name a alone, some a and b (their rows must keep b), one
// an edge of a alone, one b, c and their edge.
func graphSpans(g *graph) []sources.Provenance {
	nodeFact := func(id uuid.UUID) sources.Fact { return sources.Fact{Kind: storage.IndexNode, ID: id, TxStart: 1} }
	edgeFact := func(id uuid.UUID) sources.Fact { return sources.Fact{Kind: storage.IndexEdge, ID: id, TxStart: 1} }
	span := func(start, end uint64, facts ...sources.Fact) sources.Provenance {
		slices.SortFunc(facts, func(x, y sources.Fact) int { // as the store keeps them
			return cmp.Or(cmp.Compare(x.Kind, y.Kind), bytes.Compare(x.ID[:], y.ID[:]))
		})
		return sources.Provenance{Span: sources.Span{Source: g.doc, Start: start, End: end}, Facts: facts}
	}
	return []sources.Provenance{
		span(0, 5, nodeFact(g.a)),
		span(0, 16, nodeFact(g.a), nodeFact(g.b), edgeFact(g.ab)),
		span(6, 16, edgeFact(g.ab)),
		span(12, 15, nodeFact(g.b)),
		span(17, 35, nodeFact(g.c), edgeFact(g.ca)),
		span(35, 52, nodeFact(g.b), nodeFact(g.c), edgeFact(g.bc)),
	}
}

func newGraph(t *testing.T, e storage.Engine, scope storage.TenantScope, marker string) *graph {
	t.Helper()
	g := &graph{scope: scope, a: uuid.New(), b: uuid.New(), c: uuid.New()}
	g.index = bitmap.New(e, bitmap.Options{})
	g.store = temporal.Open(e, temporal.Options{Indexers: []temporal.Indexer{g.index}})
	g.vectors = vector.New(e)
	t.Cleanup(func() { _ = g.vectors.Close() })
	always := temporal.Interval{Start: 0, End: temporal.Forever}
	for _, n := range []struct {
		id   uuid.UUID
		name string
	}{{g.a, marker}, {g.b, "bob"}, {g.c, "carol"}} {
		for _, city := range []string{"Lisbon", "Porto"} { // two versions
			_, err := g.store.AssertNode(scope, temporal.NodeFact{ID: n.id, Valid: always, Labels: []string{"Person"},
				Props: temporal.Properties{"name": temporal.String(n.name), "city": temporal.String(city)}})
			mustDo(t, err)
		}
	}
	g.ab, g.ca, g.bc = uuid.New(), uuid.New(), uuid.New()
	for _, ed := range [][3]uuid.UUID{{g.ab, g.a, g.b}, {g.ca, g.c, g.a}, {g.bc, g.b, g.c}} {
		note := "about b and c"
		if ed[1] == g.a || ed[2] == g.a {
			note = marker // an edge names both endpoints: it is erased with a
		}
		_, err := g.store.AssertEdge(scope, temporal.EdgeFact{ID: ed[0], From: ed[1], To: ed[2], Type: "KNOWS", Valid: always,
			Props: temporal.Properties{"note": temporal.String(note)}})
		mustDo(t, err)
	}
	docs := sources.Open(e, sources.Options{})
	doc, _, err := docs.IngestBytes(scope, []byte(graphText))
	mustDo(t, err)
	g.doc = doc.ID
	for _, p := range graphSpans(g) {
		mustDo(t, docs.Record(scope, p.Span, p.Facts...))
	}
	model, err := g.vectors.RegisterModel("erase-test", 3, vector.Cosine, 1)
	mustDo(t, err)
	for _, id := range []uuid.UUID{g.a, g.b} {
		mustDo(t, g.vectors.Put(scope, id, model.Name, 0, 10, []float32{1, 2, 3}))
	}
	return g
}

// people returns the ids the bitmap index finds for city = Porto.
func (g *graph) people(t *testing.T, e storage.Engine) []uuid.UUID {
	t.Helper()
	ids, err := g.index.Equal(e, g.scope, "Person", "city", temporal.String("Porto"))
	mustDo(t, err)
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return bytes.Compare(x[:], y[:]) })
	return ids
}

// checkEntityGone checks that nothing of g.a remains: no version, no
// adjacency row under any node naming it, no vector, not in the bitmap
// index, no span row naming it or its edges in either shape, and that b
// and c keep their own rows and provenance.
func checkEntityGone(t *testing.T, e storage.Engine, g *graph) {
	t.Helper()
	for _, rg := range []storage.ScanRange{
		storage.NodeHistory(g.scope, g.a), storage.AdjacencyOutRange(g.scope, g.a),
		storage.AdjacencyInRange(g.scope, g.a), storage.NodeVectors(g.scope, g.a),
	} {
		if c, err := countRanges(e, []storage.ScanRange{rg}); err != nil || c.Rows != 0 {
			t.Errorf("%s: %d rows remain (%v)", rg.Family(), c.Rows, err)
		}
	}
	for _, cf := range []storage.ColumnFamily{storage.AdjacencyOut, storage.AdjacencyIn, storage.ValidTimeIndex, storage.TxTimeIndex, storage.BitmapIndex, storage.Spans} {
		for kv, err := range e.Scan(storage.TenantAll(g.scope, cf)) {
			mustDo(t, err)
			for _, id := range []uuid.UUID{g.a, g.ab, g.ca} {
				if bytes.Contains(kv.Key, id[:]) || bytes.Contains(kv.Value, id[:]) {
					s, _ := storage.DescribeKey(cf, kv.Key)
					t.Errorf("a row still names the erased entity or one of its edges: %s", s)
				}
			}
		}
	}
	docs := sources.Open(e, sources.Options{})
	all := graphSpans(g)
	// The spans without a fact of a or its edges go; the others keep b, c
	// and their edge.
	keep := func(p sources.Provenance) sources.Provenance {
		p.Facts = slices.DeleteFunc(slices.Clone(p.Facts), func(f sources.Fact) bool { return f.ID == g.a || f.ID == g.ab || f.ID == g.ca })
		return p
	}
	want := []sources.Provenance{keep(all[1]), all[3], keep(all[4]), all[5]}
	got, err := docs.Facts(g.scope, g.doc, 0, math.MaxUint64)
	mustDo(t, err)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("provenance of the document after the erasure:\n got %v\nwant %v", got, want)
	}
	for _, id := range []uuid.UUID{g.b, g.c, g.bc} {
		if p, err := docs.Passages(g.scope, id); err != nil || len(p) == 0 {
			t.Errorf("the passages of %s: %v, %v", id, p, err)
		}
	}
	if ids := g.people(t, e); slices.Contains(ids, g.a) || len(ids) != 2 {
		t.Errorf("bitmap query finds %v, want b and c only", ids)
	}
	for _, id := range []uuid.UUID{g.b, g.c} {
		if c, _ := countRanges(e, []storage.ScanRange{storage.NodeHistory(g.scope, id)}); c.Rows == 0 {
			t.Errorf("node %s lost its versions", id)
		}
	}
	if c, _ := countRanges(e, []storage.ScanRange{storage.NodeVectors(g.scope, g.b)}); c.Rows != 1 {
		t.Errorf("b has %d vectors, want 1", c.Rows)
	}
	if adj, err := g.store.Adjacent(g.scope, g.b, temporal.Out, nil, temporal.AsOf{Valid: 5, Tx: temporal.Forever - 1}); err != nil || len(adj) != 1 {
		t.Errorf("b's own edge to c: %v, %v", adj, err)
	}
}

func TestEraseEntity(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scopes := storagetest.TenantScopes(t, 2)
		g := newGraph(t, env.Engine, scopes[0], "entity-marker")
		other := newGraph(t, env.Engine, scopes[1], "other")
		// The other tenant holds a fact of the same id as the erased one.
		mustDo(t, sources.Open(env.Engine, sources.Options{}).Record(scopes[1], sources.Span{Source: other.doc, Start: 0, End: 5},
			sources.Fact{Kind: storage.IndexNode, ID: g.a, TxStart: 1}))
		before := dump(t, env.Engine, scopes[1])
		if ids := g.people(t, env.Engine); len(ids) != 3 {
			t.Fatalf("before: bitmap finds %v", ids)
		}
		er, err := EraseEntity(env.Engine, g.scope, g.a, EraseOptions{})
		mustDo(t, err)
		if er.Entry.Kind != ledger.KindEntity || er.Entry.Entity != g.a || er.Entry.Verified.IsZero() {
			t.Errorf("ledger entry %+v", er.Entry)
		}
		checkEntityGone(t, env.Engine, g)
		if !bytes.Equal(dump(t, env.Engine, scopes[1]), before) {
			t.Error("the other tenant changed")
		}
		if _, err := EraseEntity(env.Engine, g.scope, g.a, EraseOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("erasing it again: %v, want ErrNotFound", err)
		}
		if _, err := EraseEntity(env.Engine, g.scope, uuid.Nil, EraseOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("erasing the nil id: %v, want ErrNotFound", err)
		}
		if _, err := EraseEntity(env.Engine, zeroScope, g.b, EraseOptions{}); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("erasing in the zero scope: %v", err)
		}
	})
}

// TestEraseEntityMarkerAndRestore erases an entity on RocksDB, finds its
// marker in no file, then restores a checkpoint taken before and finds the
// entity gone from the restored store too, bitmap postings included.
func TestEraseEntityMarkerAndRestore(t *testing.T) {
	const marker = "ENTITY-ERASE-3b1d-marker"
	base := t.TempDir()
	dir, ckpt, restored := filepath.Join(base, "store"), filepath.Join(base, "ckpt"), filepath.Join(base, "restored")
	e := storagetest.OpenRocksDB(t, dir)
	g := newGraph(t, e, storagetest.TenantScope(t), marker)
	checkpoint(t, e, ckpt)
	if len(grepDir(t, dir, marker)) == 0 {
		t.Fatal("the marker is in no file before the erasure")
	}
	_, err := EraseEntity(e, g.scope, g.a, EraseOptions{})
	mustDo(t, err)
	if hits := grepDir(t, dir, marker); len(hits) > 0 {
		t.Errorf("after the erasure, the marker is in %v", hits)
	}
	entries, err := LedgerEntries(e)
	mustDo(t, err)
	mustDo(t, e.Close())
	_, err = Restore(ckpt, restored, entries, RestoreOptions{})
	mustDo(t, err)
	if hits := grepDir(t, restored, marker); len(hits) > 0 {
		t.Errorf("after the restore, the marker is in %v", hits)
	}
	r := storagetest.OpenRocksDB(t, restored)
	g.index = bitmap.New(r, bitmap.Options{})
	g.store = temporal.Open(r, temporal.Options{Indexers: []temporal.Indexer{g.index}})
	checkEntityGone(t, r, g)
}

// rowsNotNaming returns the rows of a dump that do not name id, outside
// the spans family (whose rows under a document are rewritten, not
// deleted, when one of their facts is erased).
func rowsNotNaming(d []byte, id uuid.UUID) []string {
	name := fmt.Sprintf("%x", id[:])
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(d), "\n"), "\n") {
		if !strings.Contains(line, name) && !strings.HasPrefix(line, storage.Spans.String()+" ") {
			out = append(out, line)
		}
	}
	return out
}

// checkEdgeGone checks that no row of g's tenant names edge bc in any
// family (its versions, both index rows, both adjacency rows, its span
// rows in both shapes), that every other row outside the spans family is
// as it was (before is the tenant's dump before the erasure), and that the
// document's provenance lost bc alone.
func checkEdgeGone(t *testing.T, e storage.Engine, g *graph, before []byte) {
	t.Helper()
	for _, cf := range storage.Families() {
		for kv, err := range e.Scan(storage.TenantAll(g.scope, cf)) {
			mustDo(t, err)
			if bytes.Contains(kv.Key, g.bc[:]) || bytes.Contains(kv.Value, g.bc[:]) {
				s, _ := storage.DescribeKey(cf, kv.Key)
				t.Errorf("a row still names the erased edge: %s", s)
			}
		}
	}
	if got, want := rowsNotNaming(dump(t, e, g.scope), g.bc), rowsNotNaming(before, g.bc); !slices.Equal(got, want) {
		t.Errorf("the edge erasure changed other rows:\n got %q\nwant %q", got, want)
	}
	all := graphSpans(g)
	last := all[5]
	last.Facts = slices.DeleteFunc(slices.Clone(last.Facts), func(f sources.Fact) bool { return f.ID == g.bc })
	want := append(all[:5:5], last)
	got, err := sources.Open(e, sources.Options{}).Facts(g.scope, g.doc, 0, math.MaxUint64)
	mustDo(t, err)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("provenance of the document after the edge erasure:\n got %v\nwant %v", got, want)
	}
	if ids := g.people(t, e); len(ids) != 3 {
		t.Errorf("bitmap query finds %v, want a, b and c", ids)
	}
}

// TestEraseEntityEdge erases an edge on its own, in one of three tenants
// that hold the same ids: the edge's rows go in every family, its
// endpoints and their other edges stay, the other tenants are
// byte-identical; then erasing one of its endpoints still works, and the
// edge again is ErrNotFound.
func TestEraseEntityEdge(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		scopes := storagetest.TenantScopes(t, 3)
		g := newGraph(t, e, scopes[0], "edge-marker")
		var others [][]byte
		for i, scope := range scopes[1:] {
			o := newGraph(t, e, scope, "other")
			var b storage.Batch // the other tenants hold an edge of the same id and its provenance
			b.Put(storage.EdgeVersionKey(scope, g.bc, 1, 1), []byte("the same id"))
			mustDo(t, e.Write(&b))
			mustDo(t, sources.Open(e, sources.Options{}).Record(scope, sources.Span{Source: o.doc, Start: 0, End: uint64(i + 3)},
				sources.Fact{Kind: storage.IndexEdge, ID: g.bc, TxStart: 1}))
			others = append(others, dump(t, e, scope))
		}
		before := dump(t, e, g.scope)
		er, err := EraseEntity(e, g.scope, g.bc, EraseOptions{})
		mustDo(t, err)
		if er.Entry.Kind != ledger.KindEntity || er.Entry.Entity != g.bc || er.Entry.Verified.IsZero() {
			t.Errorf("ledger entry %+v", er.Entry)
		}
		if rows, _ := er.Entry.Rows(); rows == 0 {
			t.Error("the ledger entry records no row")
		}
		checkEdgeGone(t, e, g, before)
		asOf := temporal.AsOf{Valid: 5, Tx: temporal.Forever - 1}
		for _, c := range []struct {
			node uuid.UUID
			dir  temporal.Direction
			want uuid.UUID // the one edge left; uuid.Nil for none
		}{{g.b, temporal.Out, uuid.Nil}, {g.b, temporal.In, g.ab}, {g.c, temporal.In, uuid.Nil}, {g.c, temporal.Out, g.ca}} {
			adj, err := g.store.Adjacent(g.scope, c.node, c.dir, nil, asOf)
			mustDo(t, err)
			if (c.want == uuid.Nil && len(adj) != 0) || (c.want != uuid.Nil && (len(adj) != 1 || adj[0].Edge != c.want)) {
				t.Errorf("%s edges of %s: %v, want %s", c.dir, c.node, adj, c.want)
			}
		}
		for i, scope := range scopes[1:] {
			if !bytes.Equal(dump(t, e, scope), others[i]) {
				t.Errorf("tenant %d changed", i+1)
			}
		}
		if _, err := EraseEntity(e, g.scope, g.bc, EraseOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("erasing the edge again: %v, want ErrNotFound", err)
		}
		// Its endpoint next: the node goes with its remaining edges.
		_, err = EraseEntity(e, g.scope, g.b, EraseOptions{})
		mustDo(t, err)
		for _, rg := range []storage.ScanRange{storage.NodeHistory(g.scope, g.b), storage.EdgeHistory(g.scope, g.ab),
			storage.AdjacencyInRange(g.scope, g.b), storage.AdjacencyOutRange(g.scope, g.a)} {
			if c, err := countRanges(e, []storage.ScanRange{rg}); err != nil || c.Rows != 0 {
				t.Errorf("%s: %d rows remain after erasing b (%v)", rg.Family(), c.Rows, err)
			}
		}
		for _, id := range []uuid.UUID{g.a, g.c} {
			if c, _ := countRanges(e, []storage.ScanRange{storage.NodeHistory(g.scope, id)}); c.Rows == 0 {
				t.Errorf("node %s lost its versions", id)
			}
		}
		for i, scope := range scopes[1:] {
			if !bytes.Equal(dump(t, e, scope), others[i]) {
				t.Errorf("tenant %d changed", i+1)
			}
		}
	})
}

// entityChildEnv carries "store dir|step|tenant|organization|entity" to
// the child process of TestEraseEdgeSurvivesKill.
const entityChildEnv = "TELHA_LIFECYCLE_ENTITY_CHILD"

// TestEraseEntityCrashChild is the child's body: it erases the entity and
// kills itself with SIGKILL right after the step it is given. It runs
// only when re-executed by TestEraseEdgeSurvivesKill.
func TestEraseEntityCrashChild(t *testing.T) {
	e, step, scope, rest := crashChild(t, entityChildEnv)
	_, err := EraseEntity(e, scope, uuid.MustParse(rest[0]), EraseOptions{})
	t.Fatalf("the erasure returned (%v) instead of being killed after %s", err, step)
}

// TestEraseEdgeSurvivesKill erases an edge on RocksDB in a child process
// killed with SIGKILL right after each step, then opens the store, runs
// Resume, and checks that the erasure completed: the edge's rows gone, the
// rest as it was, the entry verified, the edge's note in no file.
func TestEraseEdgeSurvivesKill(t *testing.T) {
	const note = "about b and c" // the edge bc's property alone holds it
	for _, step := range []EraseStep{StepDelete, StepCompact, StepForget, StepVerify, StepMarkVerified} {
		t.Run(step.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			e := storagetest.OpenRocksDB(t, dir)
			g := newGraph(t, e, storagetest.TenantScope(t), "graph")
			before := dump(t, e, g.scope)
			mustDo(t, g.vectors.Close())
			mustDo(t, e.Close())
			if len(grepDir(t, dir, note)) == 0 {
				t.Fatal("the note is in no file before the erasure: the test proves nothing")
			}

			runCrashChild(t, "TestEraseEntityCrashChild", entityChildEnv, dir, step, g.scope, g.bc.String())

			e = storagetest.OpenRocksDB(t, dir)
			done, err := Resume(e, EraseOptions{})
			mustDo(t, err)
			entries, err := LedgerEntries(e)
			mustDo(t, err)
			if len(entries) != 1 || entries[0].Entity != g.bc || entries[0].Verified.IsZero() {
				t.Errorf("ledger %+v (resumed %d)", entries, len(done))
			}
			g.index = bitmap.New(e, bitmap.Options{})
			g.store = temporal.Open(e, temporal.Options{Indexers: []temporal.Indexer{g.index}})
			checkEdgeGone(t, e, g, before)
			if hits := grepDir(t, dir, note); len(hits) > 0 {
				t.Errorf("after the resumed erasure, the note is in %v", hits)
			}
		})
	}
}
