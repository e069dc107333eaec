package jobs

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/jobqueue"
)

// A tenant's queue and the system queue go through one validated path for
// every state change: both refuse the same moves, whole, with
// jobqueue.ErrBadMove, both rewrite a value in place when From == To, and
// both refuse a move decided on a value the job no longer holds.
func TestSpacesShareMoveRules(t *testing.T) {
	s, err := storage.NewTenantScope(uuid.UUID{1}, uuid.UUID{2})
	if err != nil {
		t.Fatal(err)
	}
	a := addr{Priority: 1, Created: 5, ID: uuid.UUID{3}}
	good := move{JobAddr: a, To: Queued, Value: []byte("v")}
	bad := map[string]move{
		"no state":     {JobAddr: a},
		"unknown to":   {JobAddr: a, To: 9},
		"unknown from": {JobAddr: a, From: 0xFF, To: Queued, Was: []byte("v")},
		"from a state, without the value decided on": {JobAddr: a, From: Queued, To: Leased},
	}
	for _, sp := range []space{tenantSpace{s}, systemSpace{}} {
		for name, m := range bad {
			e := storage.NewMemoryEngine()
			if err := sp.write(e, false, good, m); !errors.Is(err, jobqueue.ErrBadMove) {
				t.Errorf("%s: %s: %v, want ErrBadMove", sp, name, err)
			}
			if _, err := sp.get(e, Queued, a); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("%s: %s: part of the refused batch landed: %v", sp, name, err)
			}
		}
		e := storage.NewMemoryEngine()
		heartbeat := move{JobAddr: a, From: Queued, To: Queued, Value: []byte("w"), Was: []byte("v")}
		if err := sp.write(e, false, good); err != nil {
			t.Fatal(err)
		}
		if err := sp.write(e, false, heartbeat); err != nil {
			t.Errorf("%s: a move in place: %v", sp, err)
		}
		if v, err := sp.get(e, Queued, a); err != nil || string(v) != "w" {
			t.Errorf("%s: after a move in place: %q, %v", sp, v, err)
		}
		if err := sp.write(e, false, heartbeat); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("%s: a move decided on a value the job no longer holds: %v, want ErrConflict", sp, err)
		}
	}
}
