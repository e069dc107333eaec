package sources_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/sources"
)

// TestWritesRacingARegistryChange changes the registry row of a tenant
// between a write's check of it and its batch: a change that leaves the
// tenant writable (a scope provisioned meanwhile) lets the write land,
// made again on the new row; one that does not (an erasure begun) refuses
// it with ErrTenantNotWritable and leaves no row of it.
func TestWritesRacingARegistryChange(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(e storage.Engine, scope storage.TenantScope) error
		change func(e storage.Engine, scope storage.TenantScope) error
		lands  bool
	}{
		{"provisioned", nil, func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.Provision(e, scope, "late")
		}, true},
		{"erasing", func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.Provision(e, scope, "leaving")
		}, func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.SetState(e, scope, tenants.Erasing)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inner := storage.NewMemoryEngine()
			t.Cleanup(func() { _ = inner.Close() })
			e := &storagetest.RacingWriter{Engine: inner}
			scopes := storagetest.TenantScopes(t, 2)
			scope, other := scopes[0], scopes[1]
			s := sources.Open(e, sources.Options{})
			// The first document of a store makes its blocklist secret: a
			// write of its own, not the one raced.
			if _, _, err := s.IngestBytes(other, []byte("the store's first document")); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				if err := c.setup(inner, scope); err != nil {
					t.Fatal(err)
				}
			}
			var changeErr error
			e.Arm(func() { changeErr = c.change(inner, scope) })
			b, _, err := s.IngestBytes(scope, []byte("a document"))
			if changeErr != nil {
				t.Fatal(changeErr)
			}
			if c.lands {
				if err != nil {
					t.Fatalf("ingest into a tenant provisioned meanwhile: %v", err)
				}
				if _, err := s.Stat(scope, b.ID); err != nil {
					t.Errorf("the document did not land: %v", err)
				}
				return
			}
			if !errors.Is(err, storage.ErrTenantNotWritable) {
				t.Errorf("ingest racing an erasure: %v, want ErrTenantNotWritable", err)
			}
			for _, cf := range storage.Families() {
				for kv := range inner.Scan(storage.TenantAll(scope, cf)) {
					t.Errorf("a row of the erasing tenant landed: %s %x", cf, kv.Key)
				}
			}
		})
	}
}

// TestRecordRacingAnotherProcess records a fact of a span while another
// process's store records another fact of the same span, between the
// first's read of the span's row and its batch: both facts must be kept,
// in the span's row and in each fact's reverse row.
func TestRecordRacingAnotherProcess(t *testing.T) {
	inner := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = inner.Close() })
	e := &storagetest.RacingWriter{Engine: inner}
	scope := storagetest.TenantScope(t)
	mine, theirs := sources.Open(e, sources.Options{}), sources.Open(inner, sources.Options{})
	b, _, err := mine.IngestBytes(scope, []byte("Alice knows Bob."))
	if err != nil {
		t.Fatal(err)
	}
	sp := sources.Span{Source: b.ID, Start: 0, End: 5}
	a, c := sources.Fact{Kind: storage.IndexNode, ID: uuid.UUID{1}, TxStart: 1}, sources.Fact{Kind: storage.IndexNode, ID: uuid.UUID{2}, TxStart: 1}
	var raceErr error
	e.Arm(func() { raceErr = theirs.Record(scope, sp, c) })
	if err := mine.Record(scope, sp, a); err != nil {
		t.Fatal(err)
	}
	if raceErr != nil {
		t.Fatal(raceErr)
	}
	ps, err := mine.Facts(scope, b.ID, 0, 5)
	if err != nil || len(ps) != 1 || len(ps[0].Facts) != 2 {
		t.Errorf("facts of the span = %+v, %v; want both facts", ps, err)
	}
	for _, f := range []sources.Fact{a, c} {
		if ps, err := mine.Passages(scope, f.ID); err != nil || len(ps) != 1 {
			t.Errorf("passages of fact %s = %+v, %v; want the span", f.ID, ps, err)
		}
	}
}
