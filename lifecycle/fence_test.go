package lifecycle

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
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
