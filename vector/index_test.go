package vector

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// world is the reference model of the index state machine: every vector
// row of every tenant, model and node, by (valid start, tx start), as the
// store must hold it. A nil vector is a tombstone.
type world map[storage.TenantScope]map[string]map[uuid.UUID]map[version][]float32

func (w world) put(scope storage.TenantScope, model string, node uuid.UUID, ver version, v []float32) {
	if w[scope] == nil {
		w[scope] = map[string]map[uuid.UUID]map[version][]float32{}
	}
	if w[scope][model] == nil {
		w[scope][model] = map[uuid.UUID]map[version][]float32{}
	}
	if w[scope][model][node] == nil {
		w[scope][model][node] = map[version][]float32{}
	}
	w[scope][model][node][ver] = v
}

// visible returns the vectors of a tenant and model visible as of at, by
// the documented rule: the latest valid start at or before at.Valid among
// tx starts at or before at.Tx, ties to the latest tx start.
func (w world) visible(scope storage.TenantScope, model string, at AsOf) map[uuid.UUID][]float32 {
	out := map[uuid.UUID][]float32{}
	for node, rows := range w[scope][model] {
		var best *version
		for ver := range rows {
			if ver.valid > at.Valid || ver.tx > at.Tx {
				continue
			}
			if best == nil || ver.after(*best) {
				best = &ver
			}
		}
		if best != nil && rows[*best] != nil {
			out[node] = rows[*best]
		}
	}
	return out
}

// indexMachine drives two Stores over one engine through random writes,
// deletes, staged batches (written through either Store, straight to the
// engine, or never), row erasures, tenant wipes, metric redefinitions and
// reopenings, on tenants that share node ids, and checks after every step
// that every way of searching, through either Store, agrees with the
// reference model.
type indexMachine struct {
	tb      testing.TB
	eng     storage.Engine
	opts    Options
	stores  [2]*Store
	scopes  []storage.TenantScope
	nodes   []uuid.UUID
	models  []string
	metrics map[string][]Metric // metric of each redefinition, in order
	nextTx  storage.Timestamp   // tx of the next redefinition
	world   world
	pending []*stagedBatch
}

// stagedBatch is a batch with the rows Stage put in it.
type stagedBatch struct {
	b    storage.Batch
	rows []stagedWrite
}

type stagedWrite struct {
	scope storage.TenantScope
	model string
	node  uuid.UUID
	ver   version
	v     []float32
}

const machineDim = 3

func newIndexMachine(t *rapid.T, tb testing.TB, e storage.Engine) *indexMachine {
	m := &indexMachine{
		tb: tb, eng: e,
		opts:    Options{M: 4, ExactBelow: -1, EfSearch: 8},
		metrics: map[string][]Metric{},
		nextTx:  100,
		world:   world{},
	}
	m.open()
	for range 3 {
		m.scopes = append(m.scopes, storagetest.TenantScope(tb))
	}
	for range 6 {
		m.nodes = append(m.nodes, uuid.New())
	}
	for i, metric := range []Metric{Cosine, Dot, L2} {
		name := fmt.Sprintf("sm-%s-%s", metric, uuid.NewString())
		if _, err := m.stores[0].RegisterModel(name, machineDim, metric, 0); err != nil {
			t.Fatal(err)
		}
		m.models = append(m.models, name)
		m.metrics[name] = []Metric{[]Metric{Cosine, Dot, L2}[i]}
	}
	return m
}

// smallVector draws components from a few small integers, so that ties
// between distances are common and exercise the tie rule.
var smallVector = rapid.Custom(func(t *rapid.T) []float32 {
	for {
		v := make([]float32, machineDim)
		for i := range v {
			v[i] = float32(rapid.IntRange(-2, 2).Draw(t, "c"))
		}
		if norm(v) != 0 {
			return v
		}
	}
})

// open opens the two Stores.
func (m *indexMachine) open() {
	for i := range m.stores {
		m.stores[i] = NewWithOptions(m.eng, m.opts)
	}
}

// store draws one of the two Stores.
func (m *indexMachine) store(t *rapid.T) *Store {
	return m.stores[rapid.IntRange(0, len(m.stores)-1).Draw(t, "store")]
}

func (m *indexMachine) draw(t *rapid.T) (storage.TenantScope, string, uuid.UUID, version) {
	scope := rapid.SampledFrom(m.scopes).Draw(t, "scope")
	model := rapid.SampledFrom(m.models).Draw(t, "model")
	node := rapid.SampledFrom(m.nodes).Draw(t, "node")
	ver := version{
		valid: storage.Timestamp(rapid.IntRange(0, 4).Draw(t, "valid")),
		tx:    storage.Timestamp(rapid.IntRange(1, 4).Draw(t, "tx")),
	}
	return scope, model, node, ver
}

func (m *indexMachine) Put(t *rapid.T) {
	scope, model, node, ver := m.draw(t)
	v := smallVector.Draw(t, "v")
	if err := m.store(t).Put(scope, node, model, ver.valid, ver.tx, v); err != nil {
		t.Fatal(err)
	}
	m.world.put(scope, model, node, ver, v)
}

func (m *indexMachine) Delete(t *rapid.T) {
	scope, model, node, ver := m.draw(t)
	if err := m.store(t).Delete(scope, node, model, ver.valid, ver.tx); err != nil {
		t.Fatal(err)
	}
	m.world.put(scope, model, node, ver, nil)
}

// Stage adds rows to a new pending batch; WriteStaged writes one later.
func (m *indexMachine) Stage(t *rapid.T) {
	sb := &stagedBatch{}
	for range rapid.IntRange(1, 4).Draw(t, "rows") {
		scope, model, node, ver := m.draw(t)
		v := smallVector.Draw(t, "v")
		mod, err := m.store(t).ModelAsOf(model, ver.tx)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.store(t).Stage(&sb.b, scope, mod, node, ver.valid, ver.tx, v); err != nil {
			t.Fatal(err)
		}
		sb.rows = append(sb.rows, stagedWrite{scope, model, node, ver, v})
	}
	m.pending = append(m.pending, sb)
}

func (m *indexMachine) WriteStaged(t *rapid.T) {
	if len(m.pending) == 0 {
		t.Skip("nothing staged")
	}
	i := rapid.IntRange(0, len(m.pending)-1).Draw(t, "batch")
	sb := m.pending[i]
	m.pending = slices.Delete(m.pending, i, i+1)
	var err error
	switch how := rapid.IntRange(0, 3).Draw(t, "how"); how {
	case 0:
		err = m.store(t).Write(&sb.b)
	case 1:
		err = m.store(t).WriteDurable(&sb.b)
	case 2:
		err = m.eng.Write(&sb.b) // behind the Store's back
	default:
		return // abandoned: never written
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sb.rows {
		m.world.put(r.scope, r.model, r.node, r.ver, r.v)
	}
}

// EraseRow deletes one stored row outright through Store.Write, as a
// repair tool might.
func (m *indexMachine) EraseRow(t *rapid.T) {
	scope, model, node, ver := m.draw(t)
	var b storage.Batch
	b.Delete(storage.VectorKey(scope, node, storage.ModelIDOf(model), ver.valid, ver.tx))
	if err := m.store(t).Write(&b); err != nil {
		t.Fatal(err)
	}
	if rows := m.world[scope][model][node]; rows != nil {
		delete(rows, ver)
	}
}

func (m *indexMachine) Wipe(t *rapid.T) {
	scope := rapid.SampledFrom(m.scopes).Draw(t, "scope")
	if err := storage.WipeTenant(m.eng, scope); err != nil {
		t.Fatal(err)
	}
	delete(m.world, scope)
}

// Redefine changes a model's metric (its dimension cannot change while
// vectors of it are stored).
func (m *indexMachine) Redefine(t *rapid.T) {
	model := rapid.SampledFrom(m.models).Draw(t, "model")
	metric := rapid.SampledFrom([]Metric{Cosine, Dot, L2}).Draw(t, "metric")
	if _, err := m.store(t).RedefineModel(model, machineDim, metric, m.nextTx); err != nil {
		t.Fatal(err)
	}
	m.nextTx++
	m.metrics[model] = append(m.metrics[model], metric)
}

// Reopen closes both Stores, which frees their indexes, and opens two new
// ones over the same engine, whose indexes must load what the old ones
// held (TestIndexAfterRestart restarts the engine too); the batches staged
// on the old Stores are dropped unwritten.
func (m *indexMachine) Reopen(t *rapid.T) {
	for _, s := range m.stores {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Search(m.scopes[0], Query{Model: m.models[0], Vector: []float32{1, 0, 0}, K: 1, At: Latest}); !errors.Is(err, storage.ErrClosed) {
			t.Fatalf("search on a closed Store: %v", err)
		}
	}
	m.open()
	m.pending = nil
}

// Search runs one random query by every method and checks it.
func (m *indexMachine) Search(t *rapid.T) {
	scope := rapid.SampledFrom(m.scopes).Draw(t, "scope")
	model := rapid.SampledFrom(m.models).Draw(t, "model")
	q := Query{Model: model, Vector: smallVector.Draw(t, "q"), K: rapid.IntRange(1, 8).Draw(t, "k"), At: Latest}
	if !rapid.Bool().Draw(t, "latest") {
		q.At = AsOf{
			Valid: storage.Timestamp(rapid.IntRange(0, 5).Draw(t, "at valid")),
			Tx:    storage.Timestamp(rapid.IntRange(0, 5).Draw(t, "at tx")),
		}
	}
	if rapid.Bool().Draw(t, "filtered") {
		q.Filter = &Filter{IDs: []uuid.UUID{uuid.New()}} // an id with no vector
		for _, n := range m.nodes {
			if rapid.Bool().Draw(t, "in filter") {
				q.Filter.IDs = append(q.Filter.IDs, n, n)
			}
		}
	}
	m.check(t, scope, q)
}

// Check searches every tenant and model as of Latest after every step.
func (m *indexMachine) Check(t *rapid.T) {
	for _, scope := range m.scopes {
		for _, model := range m.models {
			m.check(t, scope, Query{Model: model, Vector: []float32{1, -1, 2}, K: len(m.nodes), At: Latest})
		}
	}
}

// check runs q by every method: Exact and FromStore must both equal the
// brute-force answer over the reference model, hit for hit; Approximate
// must return hits of that answer's candidates only, with their exact
// distances, nearest first.
func (m *indexMachine) check(t *rapid.T, scope storage.TenantScope, q Query) {
	metrics := m.metrics[q.Model]
	metric := metrics[0]
	if q.At.Tx >= 100 {
		metric = metrics[min(int(q.At.Tx-100)+1, len(metrics)-1)]
	}
	cands := m.world.visible(scope, q.Model, q.At)
	if q.Filter != nil {
		for node := range cands {
			if !slices.Contains(q.Filter.IDs, node) {
				delete(cands, node)
			}
		}
	}
	var want []Hit
	for node, v := range cands {
		want = append(want, Hit{Node: node, Distance: distance(metric, q.Vector, v, norm(q.Vector))})
	}
	slices.SortFunc(want, compareHits)
	want = want[:min(q.K, len(want))]
	for _, method := range []Method{Exact, FromStore, Approximate} {
		q.Method = method
		got, err := m.store(t).Search(scope, q)
		if err != nil {
			t.Fatalf("%s: %v", methodName(method), err)
		}
		if method != Approximate {
			if !slices.Equal(got, want) {
				t.Fatalf("%s search %+v in %s:\n got %v\nwant %v", methodName(method), q, scope, got, want)
			}
			continue
		}
		if len(got) > len(want) || !slices.IsSortedFunc(got, compareHits) {
			t.Fatalf("approximate search %+v: %v, want at most %d hits in order", q, got, len(want))
		}
		for _, h := range got {
			v, ok := cands[h.Node]
			if !ok || h.Distance != distance(metric, q.Vector, v, norm(q.Vector)) {
				t.Fatalf("approximate search %+v in %s: hit %v is not a candidate with its exact distance", q, scope, h)
			}
		}
	}
}

func methodName(m Method) string {
	return map[Method]string{Exact: "exact", FromStore: "store", Approximate: "approximate"}[m]
}

// TestIndexMatchesStore runs the index state machine on every engine: no
// sequence of writes, deletes, staged batches, erasures, wipes,
// redefinitions and reopenings makes a search of "now" differ from the
// store's, or return a node of another tenant.
func TestIndexMatchesStore(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		storagetest.Check(t, env, func(rt *rapid.T) {
			m := newIndexMachine(rt, t, env.Engine)
			defer func() {
				for _, s := range m.stores {
					_ = s.Close()
				}
			}()
			// The actions are listed here: rapid.StateMachineActions finds
			// them by reflection over a machine that holds an engine, which
			// the gate refuses outside the key authority.
			rt.Repeat(map[string]func(*rapid.T){
				"Put":         m.Put,
				"Delete":      m.Delete,
				"Stage":       m.Stage,
				"WriteStaged": m.WriteStaged,
				"EraseRow":    m.EraseRow,
				"Wipe":        m.Wipe,
				"Redefine":    m.Redefine,
				"Reopen":      m.Reopen,
				"Search":      m.Search,
				"":            m.Check,
			})
		})
	})
}

// TestIndexAfterRestart: a Store opened over a restarted engine loads the
// index from what the engine kept, and answers as the store path does.
func TestIndexAfterRestart(t *testing.T) {
	storagetest.EachDurableEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := New(env.Engine)
		mustRegister(t, s, "restart", 2, L2)
		scope := storagetest.TenantScope(t)
		for i := range 50 {
			if err := s.Put(scope, uuid.New(), "restart", 1, 10, []float32{float32(i), 1}); err != nil {
				t.Fatal(err)
			}
		}
		q := Query{Model: "restart", Vector: []float32{7, 0}, K: 5, At: Latest}
		before, err := s.Search(scope, q)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = New(env.Reopen(t))
		defer s.Close()
		after, err := s.Search(scope, q)
		q.Method = FromStore
		store, storeErr := s.Search(scope, q)
		if err != nil || storeErr != nil || !slices.Equal(after, before) || !slices.Equal(after, store) {
			t.Fatalf("after the restart: %v, %v; before %v; store %v, %v", after, err, before, store, storeErr)
		}
	})
}
