package sources_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// failingEngine fails every batch write after the first ok ones.
type failingEngine struct {
	storage.Engine
	mu sync.Mutex
	ok int
}

var errInjected = errors.New("injected write failure")

func (e *failingEngine) fail() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ok == 0 {
		return true
	}
	e.ok--
	return false
}

func (e *failingEngine) Write(b *storage.Batch) error {
	if e.fail() {
		return errInjected
	}
	return e.Engine.Write(b)
}

func (e *failingEngine) WriteDurable(b *storage.Batch) error {
	if e.fail() {
		return errInjected
	}
	return e.Engine.WriteDurable(b)
}

// An ingest that fails after any of its batches leaves no readable blob,
// and the next ingest of the same text stores it whole.
func TestIngestFailureLeavesNoBlob(t *testing.T) {
	doc := text(40*sources.ChunkSize+9, 11) // three batches: 16, 16 and 8 chunks with chunk 0
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scope := storagetest.TenantScope(t)
		for ok := range 3 {
			s := openStore(&failingEngine{Engine: env.Engine, ok: ok})
			if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, errInjected) {
				t.Fatalf("ingest failing after %d batches: %v", ok, err)
			}
			if _, err := openStore(env.Engine).Stat(scope, sources.BlobID(doc)); !errors.Is(err, sources.ErrNoBlob) {
				t.Fatalf("after a failure at batch %d the blob is visible: %v", ok, err)
			}
		}
		s := openStore(env.Reopen(t))
		b, created, err := s.IngestBytes(scope, doc)
		if err != nil || !created {
			t.Fatalf("ingest after failures: created %v, %v", created, err)
		}
		if got := mustRead(t, s, scope, b.ID); !bytes.Equal(got, doc) {
			t.Fatal("the blob ingested after failures does not read back")
		}
	})
}

// Concurrent ingests of one text and concurrent records of one span agree:
// one blob, every fact recorded once.
func TestConcurrentIngestAndRecord(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(3*sources.ChunkSize, 12)
		var wg sync.WaitGroup
		ids := make([]sources.Blob, 4)
		errs := make([]error, 4)
		for i := range ids {
			wg.Go(func() { ids[i], _, errs[i] = s.IngestBytes(scope, doc) })
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil || ids[i].ID != sources.BlobID(doc) {
				t.Fatalf("ingest %d: %+v, %v", i, ids[i], errs[i])
			}
		}
		span := sources.Span{Source: ids[0].ID, Start: 1, End: 50}
		for i := range 8 {
			wg.Go(func() {
				if err := s.Record(scope, span, node(i%4), edge(i%2)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		facts, err := s.Facts(scope, span.Source, 0, 100)
		if err != nil || len(facts) != 1 || len(facts[0].Facts) != 6 {
			t.Fatalf("facts after concurrent records: %v, %v", facts, err)
		}
		for i := range 4 {
			if p, err := s.Passages(scope, node(i).ID); err != nil || len(p) != 1 || len(p[0].Facts) != 1 {
				t.Fatalf("passages of node %d: %v, %v", i, p, err)
			}
		}
		if got := mustRead(t, s, scope, span.Source); !bytes.Equal(got, doc) {
			t.Fatal("concurrently ingested blob does not read back")
		}
	})
}
