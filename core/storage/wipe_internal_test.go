package storage

import (
	"runtime"
	"testing"
	"time"
)

// count returns the number of listeners registered on e.
func (r *wipeRegistry) count(e Engine) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.listeners[e])
}

type wipeOwner struct {
	forgotten int
	_         [64]byte // not a tiny allocation, whose cleanup may be batched
}

func (o *wipeOwner) forget(TenantScope) { o.forgotten++ }

// TestWipeListenersDoNotLeak registers many owners that are then dropped
// without cancelling: the registry must let them go, keep a live owner, and
// let the engine go with its last owner.
func TestWipeListenersDoNotLeak(t *testing.T) {
	e := NewMemoryEngine()
	s, err := NewTenantScope([16]byte{1}, [16]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		live := &wipeOwner{}
		OnWipe(e, live, (*wipeOwner).forget)
		for range 1000 {
			OnWipe(e, &wipeOwner{}, (*wipeOwner).forget)
		}
		collect(t, e, 1)
		if err := WipeTenant(e, s); err != nil {
			t.Fatal(err)
		}
		if live.forgotten != 1 {
			t.Fatalf("the live owner heard %d wipes, want 1", live.forgotten)
		}
	}()
	collect(t, e, 0)
	// A refresh and a wipe of an engine nothing listens on record nothing.
	if err := RefreshTenant(e, s); err != nil {
		t.Fatal(err)
	}
	if err := WipeTenant(e, s); err != nil {
		t.Fatal(err)
	}
	wipes.mu.Lock()
	_, held := wipes.listeners[e]
	_, seen := wipes.seen[e]
	wipes.mu.Unlock()
	if held || seen {
		t.Fatalf("the registry still holds the engine after its last listener went (listeners %t, generations %t)", held, seen)
	}
}

// collect runs the garbage collector until e has want listeners left.
func collect(t *testing.T, e Engine, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for wipes.count(e) > want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := wipes.count(e); n != want {
		t.Fatalf("%d listeners registered after their owners were dropped, want %d", n, want)
	}
}
