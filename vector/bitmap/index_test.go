package bitmap

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// open returns a temporal store with an index registered on it.
func open(e storage.Engine, opts Options) (*temporal.Store, *Index) {
	ix := New(e, opts)
	return temporal.Open(e, temporal.Options{Indexers: []temporal.Indexer{ix}}), ix
}

func always() temporal.Interval { return temporal.Interval{Start: 0, End: temporal.Forever} }

func assertNode(t testing.TB, ts *temporal.Store, scope storage.TenantScope, id uuid.UUID, labels []string, props temporal.Properties) {
	t.Helper()
	if _, err := ts.AssertNode(scope, temporal.NodeFact{ID: id, Valid: always(), Labels: labels, Props: props}); err != nil {
		t.Fatal(err)
	}
}

func TestEqualAndRange(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{})
		scope := storagetest.TenantScope(t)
		ids := make([]uuid.UUID, 6)
		ages := []int64{-50, 5, 15, 15, 250, 2_000_000}
		for i := range ids {
			ids[i] = uuid.New()
			assertNode(t, ts, scope, ids[i], []string{"Person"}, temporal.Properties{
				"age":  temporal.Int(ages[i]),
				"city": temporal.String([]string{"Lisboa", "Porto"}[i%2]),
			})
		}
		assertNode(t, ts, scope, uuid.New(), []string{"Company"}, temporal.Properties{"age": temporal.Int(15)})

		eq := []struct {
			prop string
			v    temporal.Value
			want []uuid.UUID
		}{
			{"age", temporal.Int(15), []uuid.UUID{ids[2], ids[3]}},
			{"age", temporal.Float(15), []uuid.UUID{}},
			{"age", temporal.Int(16), []uuid.UUID{}},
			{"city", temporal.String("Porto"), []uuid.UUID{ids[1], ids[3], ids[5]}},
			{"absent", temporal.String("Porto"), []uuid.UUID{}},
		}
		for _, tt := range eq {
			got, err := ix.Equal(e, scope, "Person", tt.prop, tt.v)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("%s = %#v: %v, %v; want %v", tt.prop, tt.v, got, err, tt.want)
			}
		}
		rng := []struct {
			lo, hi int64
			want   []uuid.UUID
		}{
			{math.MinInt64, math.MaxInt64, ids},
			{5, 15, ids[1:4]},
			{6, 249, ids[2:4]},
			{-49, 2_000_000, ids[1:]},
			{16, 249, []uuid.UUID{}},
			{15, 5, []uuid.UUID{}},
			{-1000, -10, ids[:1]},
		}
		for _, tt := range rng {
			got, err := ix.Range(e, scope, "Person", "age", temporal.Int(tt.lo), temporal.Int(tt.hi))
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("age in [%d, %d] = %v, %v; want %v", tt.lo, tt.hi, got, err, tt.want)
			}
		}
		got, err := ix.Range(e, scope, "Person", "age", temporal.Float(0), temporal.Float(100))
		if err != nil || len(got) != 0 {
			t.Errorf("float range over int values = %v, %v; want none", got, err)
		}
	})
}

func TestQueryErrors(t *testing.T) {
	e := storage.NewMemoryEngine()
	ix := New(e, Options{})
	scope := storagetest.TenantScope(t)
	nan := temporal.Float(math.NaN())
	for name, err := range map[string]error{
		"zero scope":   errOnly(ix.Equal(e, zeroScope, "L", "p", temporal.Int(1))),
		"empty label":  errOnly(ix.Equal(e, scope, "", "p", temporal.Int(1))),
		"empty prop":   errOnly(ix.Range(e, scope, "L", "", temporal.Int(1), temporal.Int(2))),
		"zero value":   errOnly(ix.Equal(e, scope, "L", "p", temporal.Value{})),
		"string range": errOnly(ix.Range(e, scope, "L", "p", temporal.String("a"), temporal.String("b"))),
		"mixed kinds":  errOnly(ix.Range(e, scope, "L", "p", temporal.Int(1), temporal.Float(2))),
		"nan bound":    errOnly(ix.Range(e, scope, "L", "p", nan, temporal.Float(2))),
	} {
		if !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%s: err = %v, want ErrInvalidQuery", name, err)
		}
	}
}

func errOnly(_ []uuid.UUID, err error) error { return err }

// TestTenantIsolation: three tenants index the same node ids with different
// values; each query sees only its own tenant's nodes.
func TestTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{})
		scopes := []storage.TenantScope{storagetest.TenantScope(t), storagetest.TenantScope(t), storagetest.TenantScope(t)}
		ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
		for ti, scope := range scopes {
			for ni, id := range ids {
				assertNode(t, ts, scope, id, []string{"Doc"}, temporal.Properties{"n": temporal.Int(int64(ti*10 + ni))})
			}
		}
		for ti, scope := range scopes {
			got, err := ix.Range(e, scope, "Doc", "n", temporal.Int(0), temporal.Int(100))
			if err != nil || !slices.Equal(got, ids) {
				t.Errorf("tenant %d range = %v, %v", ti, got, err)
			}
			for ni, id := range ids {
				got, err := ix.Equal(e, scope, "Doc", "n", temporal.Int(int64(ti*10+ni)))
				if err != nil || !slices.Equal(got, []uuid.UUID{id}) {
					t.Errorf("tenant %d n=%d: %v, %v", ti, ti*10+ni, got, err)
				}
				other := (ti + 1) % len(scopes)
				got, err = ix.Equal(e, scope, "Doc", "n", temporal.Int(int64(other*10+ni)))
				if err != nil || len(got) != 0 {
					t.Errorf("tenant %d sees tenant %d's value: %v, %v", ti, other, got, err)
				}
			}
		}
	})
}

// TestLifecycle: label changes, value changes and deletion move a node in
// and out of postings; emptied postings are deleted, not stored empty, and
// row ids are not reused.
func TestLifecycle(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{})
		scope := storagetest.TenantScope(t)
		id := uuid.New()
		check := func(step, label string, v int64, want bool) {
			t.Helper()
			got, err := ix.Equal(e, scope, label, "v", temporal.Int(v))
			if err != nil || (len(got) == 1) != want {
				t.Errorf("%s: %s v=%d = %v, %v; want present=%t", step, label, v, got, err, want)
			}
		}
		assertNode(t, ts, scope, id, []string{"A"}, temporal.Properties{"v": temporal.Int(1)})
		check("insert", "A", 1, true)
		assertNode(t, ts, scope, id, []string{"A", "B"}, temporal.Properties{"v": temporal.Int(2)})
		check("update", "A", 1, false)
		check("update", "A", 2, true)
		check("update", "B", 2, true)
		assertNode(t, ts, scope, id, []string{"B"}, temporal.Properties{"v": temporal.Int(2)})
		check("drop label", "A", 2, false)
		if _, err := ts.DeleteNode(scope, id, 0); err != nil {
			t.Fatal(err)
		}
		check("delete", "B", 2, false)
		for kv, err := range e.Scan(storage.BitmapPostingsRange(scope, storage.HashLabel("A"), storage.HashProperty("v"))) {
			t.Errorf("posting left after the node left label A: %x, %v", kv.Key, err)
		}
		assertNode(t, ts, scope, id, []string{"A"}, temporal.Properties{"v": temporal.Int(3)})
		v, err := e.Get(storage.BitmapRevMapKey(scope, storage.HashLabel("A"), id))
		if err != nil {
			t.Fatal(err)
		}
		rm, err := decodeRevMap(v)
		if err != nil || rm.row != 1 {
			t.Errorf("re-added node got row %d, %v; want the fresh row 1", rm.row, err)
		}
		check("re-add", "A", 3, true)
	})
}

// TestOverflow: past the cap a property loses its equality postings;
// numeric equality still answers exactly through the bands, other kinds
// fail with ErrOverflow.
func TestOverflow(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{DistinctCap: 3})
		scope := storagetest.TenantScope(t)
		ids := make([]uuid.UUID, 5)
		for i := range ids {
			ids[i] = uuid.New()
			assertNode(t, ts, scope, ids[i], []string{"L"}, temporal.Properties{
				"n": temporal.Int(int64(i)), "s": temporal.String(string(rune('a' + i))), "few": temporal.Bool(i%2 == 0),
			})
		}
		got, err := ix.Equal(e, scope, "L", "n", temporal.Int(4))
		if err != nil || !slices.Equal(got, ids[4:]) {
			t.Errorf("numeric equal after overflow = %v, %v", got, err)
		}
		if _, err := ix.Equal(e, scope, "L", "s", temporal.String("a")); !errors.Is(err, ErrOverflow) {
			t.Errorf("string equal after overflow: err = %v, want ErrOverflow", err)
		}
		got, err = ix.Equal(e, scope, "L", "few", temporal.Bool(true))
		if err != nil || !slices.Equal(got, []uuid.UUID{ids[0], ids[2], ids[4]}) {
			t.Errorf("bool under the cap = %v, %v", got, err)
		}
		lh := storage.HashLabel("L")
		for kv, err := range e.Scan(storage.BitmapPostingsRange(scope, lh, storage.HashProperty("s"))) {
			t.Errorf("equality posting of an overflowed property: %x, %v", kv.Key, err)
		}
		n, err := readCounter(e, storage.BitmapPropCounterKey(scope, lh, storage.HashProperty("s")))
		if err != nil || n != Overflow {
			t.Errorf("counter of s = %d, %v; want Overflow", n, err)
		}
		n, err = readCounter(e, storage.BitmapPropCounterKey(scope, lh, storage.HashProperty("few")))
		if err != nil || n != 2 {
			t.Errorf("counter of few = %d, %v; want 2", n, err)
		}
	})
}

// model is the brute-force reference: the current labels and properties of
// every node, and which (label, property) pairs overflowed.
type model struct {
	nodes    map[uuid.UUID]temporal.NodeFact
	overflow map[[2]string]bool
}

func (m *model) matches(label, prop string, ok func(temporal.Value) bool) []uuid.UUID {
	out := []uuid.UUID{}
	for id, n := range m.nodes {
		if v, has := n.Props[prop]; has && slices.Contains(n.Labels, label) && ok(v) {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return out
}

// distinct counts the distinct values of (label, prop) now.
func (m *model) distinct(label, prop string) int {
	var vals []temporal.Value
	for _, n := range m.nodes {
		if v, has := n.Props[prop]; has && slices.Contains(n.Labels, label) &&
			!slices.ContainsFunc(vals, v.Equal) {
			vals = append(vals, v)
		}
	}
	return len(vals)
}

func sorted(ids []uuid.UUID) []uuid.UUID {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return ids
}

var (
	labelNames = []string{"A", "B"}
	propNames  = []string{"i", "f", "s", "b"}
)

// TestIndexMatchesBruteForce drives random asserts and deletes through the
// temporal store and compares every equality and range query with a
// brute-force filter over the reference model.
func TestIndexMatchesBruteForce(t *testing.T) {
	const distinctCap = 3
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{DistinctCap: distinctCap})
		intVal := rapid.OneOf(rapid.Int64Range(-20, 20), rapid.SampledFrom([]int64{
			math.MinInt64, -1e12, -1e6 - 1, -1000, -10, 0, 9, 10, 1e5, 1e9, 1e12, math.MaxInt64}))
		floatVal := rapid.OneOf(
			rapid.Custom(func(t *rapid.T) float64 { return float64(rapid.IntRange(-40, 40).Draw(t, "x")) / 4 }),
			rapid.SampledFrom([]float64{math.Inf(-1), -1e12, -10, math.Copysign(0, -1), 10, 1e6, math.Inf(1), math.NaN()}))
		value := func(t *rapid.T, prop string) temporal.Value {
			switch prop {
			case "i":
				return temporal.Int(intVal.Draw(t, "int"))
			case "f":
				return temporal.Float(floatVal.Draw(t, "float"))
			case "s":
				return temporal.String(rapid.SampledFrom([]string{"x", "y", "z", "w", "v", "u", "t", "s"}).Draw(t, "str"))
			}
			return temporal.Bool(rapid.Bool().Draw(t, "bool"))
		}
		storagetest.Check(t, env, func(rt *rapid.T) {
			scope := storagetest.TenantScope(t)
			m := &model{nodes: map[uuid.UUID]temporal.NodeFact{}, overflow: map[[2]string]bool{}}
			ids := make([]uuid.UUID, rapid.IntRange(1, 10).Draw(rt, "ids"))
			for i := range ids {
				ids[i] = uuid.New()
			}
			for range rapid.IntRange(0, 30).Draw(rt, "writes") {
				id := rapid.SampledFrom(ids).Draw(rt, "id")
				if _, live := m.nodes[id]; live && rapid.IntRange(0, 5).Draw(rt, "delete?") == 0 {
					if _, err := ts.DeleteNode(scope, id, 0); err != nil {
						rt.Fatal(err)
					}
					delete(m.nodes, id)
					for _, l := range labelNames {
						if err := checkInvariants(e, scope, l); err != nil {
							rt.Fatalf("after deleting %s: label %s: %v", id, l, err)
						}
					}
					continue
				}
				f := temporal.NodeFact{ID: id, Valid: always(), Props: temporal.Properties{}}
				for _, l := range labelNames {
					if rapid.Bool().Draw(rt, "label?") {
						f.Labels = append(f.Labels, l)
					}
				}
				for _, p := range propNames {
					if rapid.IntRange(0, 3).Draw(rt, "prop?") > 0 {
						f.Props[p] = value(rt, p)
					}
				}
				if _, err := ts.AssertNode(scope, f); err != nil {
					rt.Fatal(err)
				}
				m.nodes[id] = f
				for _, l := range labelNames {
					if err := checkInvariants(e, scope, l); err != nil {
						rt.Fatalf("after asserting %s %v %#v: label %s: %v", id, f.Labels, f.Props, l, err)
					}
					for _, p := range propNames {
						if m.distinct(l, p) > distinctCap {
							m.overflow[[2]string{l, p}] = true
						}
					}
				}
			}
			for range 8 {
				l := rapid.SampledFrom(labelNames).Draw(rt, "q label")
				p := rapid.SampledFrom(propNames).Draw(rt, "q prop")
				v := value(rt, p)
				got, err := ix.Equal(e, scope, l, p, v)
				nanOrText := v.Kind != temporal.KindInt && (v.Kind != temporal.KindFloat || math.IsNaN(v.Float))
				if m.overflow[[2]string{l, p}] && nanOrText {
					if !errors.Is(err, ErrOverflow) {
						rt.Fatalf("%s.%s = %#v after overflow: %v, %v; want ErrOverflow", l, p, v, got, err)
					}
				} else if want := m.matches(l, p, v.Equal); err != nil || !slices.Equal(sorted(got), want) {
					rt.Fatalf("%s.%s = %#v: %v, %v; want %v", l, p, v, got, err, want)
				}
				if p != "i" && p != "f" {
					continue
				}
				lo, hi := value(rt, p), value(rt, p)
				if math.IsNaN(lo.Float) || math.IsNaN(hi.Float) {
					continue
				}
				got, err = ix.Range(e, scope, l, p, lo, hi)
				want := m.matches(l, p, func(x temporal.Value) bool {
					if x.Kind != lo.Kind {
						return false
					}
					if x.Kind == temporal.KindInt {
						return lo.Int <= x.Int && x.Int <= hi.Int
					}
					return lo.Float <= x.Float && x.Float <= hi.Float
				})
				if err != nil || !slices.Equal(sorted(got), want) {
					rt.Fatalf("%s.%s in [%#v, %#v]: %v, %v; want %v", l, p, lo, hi, got, err, want)
				}
			}
		})
	})
}

// zeroScope is the zero TenantScope, which is not a scope.
var zeroScope storage.TenantScope

// TestOverflowOneLabelOnly: when one write overflows a property under one
// label, the same property's postings under the node's other labels stay.
// (Found by TestIndexMatchesBruteForce: overflow once cleared the staged
// postings of every label.)
func TestOverflowOneLabelOnly(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{DistinctCap: 1})
		scope := storagetest.TenantScope(t)
		x, y := uuid.New(), uuid.New()
		assertNode(t, ts, scope, y, []string{"B"}, temporal.Properties{"s": temporal.String("y")})
		assertNode(t, ts, scope, x, []string{"A", "B"}, temporal.Properties{"s": temporal.String("x")})
		got, err := ix.Equal(e, scope, "A", "s", temporal.String("x"))
		if err != nil || !slices.Equal(got, []uuid.UUID{x}) {
			t.Errorf("A.s = x: %v, %v; want [x]", got, err)
		}
		if _, err := ix.Equal(e, scope, "B", "s", temporal.String("x")); !errors.Is(err, ErrOverflow) {
			t.Errorf("B.s = x: err = %v, want ErrOverflow", err)
		}
		for _, l := range []string{"A", "B"} {
			if err := checkInvariants(e, scope, l); err != nil {
				t.Errorf("label %s: %v", l, err)
			}
		}
	})
}
