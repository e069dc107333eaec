package jobs

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// TestSpentAttemptsAreNotClaimed: a queued row whose attempts are already
// spent (written by another program) is buried, not leased: leasing it
// would wrap the attempt counter to 0 and retry it for ever.
func TestSpentAttemptsAreNotClaimed(t *testing.T) {
	e := storage.NewMemoryEngine()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := NewStore(e, Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	scope, err := storage.NewTenantScope(uuid.UUID{1}, uuid.UUID{2})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Tenant(scope)
	if err != nil {
		t.Fatal(err)
	}
	spent := record{attempts: math.MaxUint32, maxAttempts: math.MaxUint32, payload: []byte("spent")}
	id := uuid.New()
	if err := e.Put(storage.JobKey(scope, Queued, 0, storage.TimestampOf(now), id), spent.encode(nil)); err != nil {
		t.Fatal(err)
	}
	if l, err := q.Claim("w"); err == nil {
		t.Fatalf("claimed a job with its attempts spent: attempt %d of %d", l.Attempts, l.MaxAttempts)
	}
	dead, err := q.List(Dead)
	if err != nil || len(dead) != 1 || dead[0].ID != id || dead[0].LastError == "" {
		t.Fatalf("dead jobs %+v, %v; want the spent job buried", dead, err)
	}
}
