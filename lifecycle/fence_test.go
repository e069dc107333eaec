package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/credentials"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/sources"
	"telha.dev/temporal"
)

// TestWritesRacingAStateChange races every kind of write of a tenant's
// rows, through every subsystem and lifecycle operation that makes one,
// with an erasure and with an import of the tenant that start after the
// write checked its tenant: the write must be refused with
// storage.ErrTenantNotWritable and nothing of it land, then or when it is
// made again. After the erasure no row of the tenant remains; after the
// import began, the tenant's rows are those it had.
func TestWritesRacingAStateChange(t *testing.T) {
	always := temporal.Interval{Start: 0, End: temporal.Forever}
	writes := []struct {
		name  string
		write func(g *graph, e storage.Engine) error
	}{
		{"assert node", func(g *graph, _ storage.Engine) error {
			_, err := g.store.AssertNode(g.scope, temporal.NodeFact{ID: uuid.New(), Valid: always, Labels: []string{"Person"}})
			return err
		}},
		{"assert edge", func(g *graph, _ storage.Engine) error {
			_, err := g.store.AssertEdge(g.scope, temporal.EdgeFact{ID: uuid.New(), From: g.b, To: g.c, Type: "KNOWS", Valid: always})
			return err
		}},
		{"delete node", func(g *graph, _ storage.Engine) error {
			_, err := g.store.DeleteNode(g.scope, g.c, 5)
			return err
		}},
		{"ingest a document", func(g *graph, e storage.Engine) error {
			_, _, err := sources.Open(e, sources.Options{}).IngestBytes(g.scope, []byte("another document"))
			return err
		}},
		{"record a span", func(g *graph, e storage.Engine) error {
			return sources.Open(e, sources.Options{}).Record(g.scope, sources.Span{Source: g.doc, Start: 1, End: 4},
				sources.Fact{Kind: storage.IndexNode, ID: g.c, TxStart: 1})
		}},
		{"record a trace", func(g *graph, e storage.Engine) error {
			_, err := sources.Open(e, sources.Options{}).RecordTrace(g.scope, sources.Trace{Query: "vector.knn", Results: []uuid.UUID{g.a}})
			return err
		}},
		{"put a vector", func(g *graph, _ storage.Engine) error {
			return g.vectors.Put(g.scope, g.c, "erase-test", 0, 20, []float32{3, 2, 1})
		}},
		{"delete a vector", func(g *graph, _ storage.Engine) error {
			return g.vectors.Delete(g.scope, g.a, "erase-test", 0, 20)
		}},
		{"erase an entity", func(g *graph, e storage.Engine) error {
			_, err := EraseEntity(e, g.scope, g.b, EraseOptions{})
			return err
		}},
		{"redact", func(g *graph, e storage.Engine) error {
			_, err := Redact(e, g.scope, g.doc, []storage.BlobRange{{Start: 0, End: 5}}, RedactOptions{})
			return err
		}},
	}
	changes := []struct {
		name   string
		change func(e storage.Engine, scope storage.TenantScope) error
	}{
		{"erasure", func(e storage.Engine, scope storage.TenantScope) error {
			_, err := EraseTenant(e, scope, EraseOptions{})
			return err
		}},
		{"import", func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.SetState(e, scope, tenants.Importing)
		}},
	}
	for _, c := range changes {
		for i, w := range writes {
			t.Run(c.name+"/"+w.name, func(t *testing.T) {
				inner := storage.NewMemoryEngine()
				t.Cleanup(func() { _ = inner.Close() })
				e := &storagetest.RacingWriter{Engine: inner}
				scope := scopeN(t, byte(i+1))
				provision(t, inner, scope, fmt.Sprintf("t%d", i))
				g := newGraph(t, e, scope, "alice")
				// The deployment's id is written once, before a first
				// ledger entry: written now, it is not the batch raced.
				_, err := ledger.Deployment(inner)
				mustDo(t, err)
				before := rowsOf(t, inner, scope)
				var changeErr error
				e.Arm(func() { changeErr = c.change(inner, scope) })

				err = w.write(g, e)
				mustDo(t, changeErr)
				if !errors.Is(err, storage.ErrTenantNotWritable) {
					t.Errorf("%s racing the %s: %v, want ErrTenantNotWritable", w.name, c.name, err)
				}
				check := func(when string) {
					t.Helper()
					if c.name == "erasure" {
						if err := remains(inner, storage.TenantRanges(scope)); err != nil {
							t.Errorf("%s: %v", when, err)
						}
					} else if fmt.Sprint(rowsOf(t, inner, scope)) != fmt.Sprint(before) {
						t.Errorf("%s: the %s wrote to a tenant being imported", when, w.name)
					}
				}
				check("after the race")
				// Made again, the write is refused, at its fence or, with
				// the rows it needs erased, before.
				if err := w.write(g, e); err == nil {
					t.Errorf("%s after the %s began: done, want refused", w.name, c.name)
				}
				check("after the write made again")
			})
		}
	}
}

// TestResumeFinishesARedactionOfAnErasingTenant interrupts a redaction
// that erases its overlapping facts after its commit, and then an erasure
// of the same tenant after its mark: Resume must finish both, the
// redaction's entity erasures refused by the fence going with the tenant,
// and leave the tenant erased.
func TestResumeFinishesARedactionOfAnErasingTenant(t *testing.T) {
	e := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = e.Close() })
	scope := scopeN(t, 1)
	provision(t, e, scope, "alpha")
	g := newGraph(t, e, scope, "alice")
	t.Cleanup(func() { afterStep = nil })
	errCrash := errors.New("injected crash")
	crashAfter := func(at EraseStep) {
		afterStep = func(s EraseStep) error {
			if s == at {
				return errCrash
			}
			return nil
		}
	}
	crashAfter(StepDelete)
	if _, err := Redact(e, scope, g.doc, []storage.BlobRange{{Start: 0, End: 20}}, RedactOptions{EraseFacts: true}); !errors.Is(err, errCrash) {
		t.Fatalf("redaction: %v, want the injected crash", err)
	}
	crashAfter(StepMarkErasing)
	if _, err := EraseTenant(e, scope, EraseOptions{}); !errors.Is(err, errCrash) {
		t.Fatalf("erasure: %v, want the injected crash", err)
	}
	afterStep = nil
	if _, err := Resume(e, EraseOptions{}); err != nil {
		t.Errorf("resume: %v", err)
	}
	if st, err := tenants.Get(e, scope); err != nil || st.State != tenants.Erased {
		t.Errorf("after Resume the tenant is %s (%v), want erased", st.State, err)
	}
	if err := remains(e, storage.TenantRanges(scope)); err != nil {
		t.Error(err)
	}
}

// TestKeyCreatedRacingAnErasureIsRefused creates an API key of a tenant
// whose erasure begins after the creation checked it: the key must be
// refused, not land after the erasure deleted the tenant's keys.
func TestKeyCreatedRacingAnErasureIsRefused(t *testing.T) {
	inner := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = inner.Close() })
	e := &storagetest.RacingWriter{Engine: inner}
	scope := scopeN(t, 1)
	provision(t, inner, scope, "alpha")
	_, err := ledger.Deployment(inner)
	mustDo(t, err)
	var eraseErr error
	e.Arm(func() { _, eraseErr = EraseTenant(inner, scope, EraseOptions{}) })
	_, _, err = credentials.Create(e, scope, "ci", time.Time{})
	mustDo(t, eraseErr)
	if !errors.Is(err, storage.ErrTenantNotWritable) {
		t.Errorf("create a key racing the erasure: %v, want ErrTenantNotWritable", err)
	}
	keys, err := credentials.List(inner)
	mustDo(t, err)
	for _, k := range keys {
		if k.Scope == scope {
			t.Errorf("key %s of the erased tenant landed after its erasure", k.ID)
		}
	}
}

// erasingImport erases tenant to at the first batch of an import that
// puts a row of to, before it applies it: an erasure that another process
// begins while the import runs.
type erasingImport struct {
	storage.Engine
	to     storage.TenantScope
	erased bool
	err    error
}

func (e *erasingImport) race(b *storage.Batch) {
	for _, m := range b.All() {
		if !e.erased && m.Kind == storage.MutationPut && storage.TenantAll(e.to, m.Key.Family()).Contains(m.Key) {
			e.erased = true
			_, e.err = EraseTenant(e.Engine, e.to, EraseOptions{})
			return
		}
	}
}

func (e *erasingImport) Write(b *storage.Batch) error {
	e.race(b)
	return e.Engine.Write(b)
}

func (e *erasingImport) WriteDurable(b *storage.Batch) error {
	e.race(b)
	return e.Engine.WriteDurable(b)
}

// TestImportRacingAnErasureStops begins an erasure of the import's target
// after the import's first batch of rows was checked: that batch and every
// later one are refused, the import fails with ErrNotWritable and leaves
// the tenant to its erasure, and no row of it remains.
func TestImportRacingAnErasureStops(t *testing.T) {
	inner, _, data := memoryTenant(t, "source", 300)
	to := scopeN(t, 2)
	provision(t, inner, to, "target")
	_, err := ledger.Deployment(inner)
	mustDo(t, err)
	e := &erasingImport{Engine: inner, to: to}
	_, err = Import(e, to, bytes.NewReader(data), Options{})
	mustDo(t, e.err)
	if !e.erased || !errors.Is(err, ErrNotWritable) {
		t.Errorf("import racing an erasure (raced: %v): %v, want ErrNotWritable", e.erased, err)
	}
	if st, err := tenants.Get(inner, to); err != nil || st.State != tenants.Erased {
		t.Errorf("the target is %s (%v), want erased", st.State, err)
	}
	if err := remains(inner, storage.TenantRanges(to)); err != nil {
		t.Error(err)
	}
}
