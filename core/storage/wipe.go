package storage

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/google/uuid"
)

// A tenant wipe is a first-class operation because subsystems cache what
// they read of a tenant (edge type names, transaction high-water marks, job
// queue positions). Deleting a tenant's rows behind their back leaves those
// caches describing rows that no longer exist, and a cache that says "this
// is already stored" makes a subsystem skip a write it must make. So the
// rows are deleted here, and every subsystem opened on the engine is told.
//
// The listeners live in a process-wide registry keyed by engine. The
// registry holds each listener's owner weakly: a subsystem that is dropped
// without cancelling its registration is collected as usual, and its
// registration goes with it, so opening subsystems in a loop does not leak.

// ErrWipeUnsupported reports an engine that has no identity to register
// wipe listeners under: nil, or a value whose dynamic type is not
// comparable. WipeTenant refuses it rather than delete rows that cached
// state would never hear about.
var ErrWipeUnsupported = errors.New("engine has no identity to wipe by")

// WipeTenant deletes every row of scope in every column family of e, makes
// the deletes durable, and then calls every listener registered on e with
// OnWipe, so that each subsystem drops what it caches for scope. Other
// scopes, the system scope included, are not touched.
//
// The listeners are called even when a delete fails part way, because
// dropping a cache is always safe and some rows may already be gone; the
// error is returned after them. Calling WipeTenant again completes an
// interrupted wipe.
//
// Limits, each stated so that tenant erasure can build on this and close
// them:
//   - The 13 families are deleted one range at a time (Engine.DeleteRange),
//     not in one atomic step: a crash in the middle leaves some families
//     wiped and others not, until the wipe is run again.
//   - Durability comes from a durable point delete in the wiped tenant
//     written after the range deletes: on an engine with one ordered log
//     (RocksDB's write-ahead log) syncing a later write syncs every earlier
//     one.
//   - The deletes leave tombstones; the bytes stay in the engine's files
//     until compaction. A wipe is not an erasure.
//   - Writes to scope that run concurrently with the wipe may survive it:
//     quiesce the tenant first.
//   - Listeners are per process and per engine value: subsystems must have
//     been opened on the same value that is passed here.
func WipeTenant(e Engine, scope TenantScope) error {
	if scope.IsZero() {
		return fmt.Errorf("wipe tenant: %w", ErrNilScope)
	}
	if !Identifiable(e) {
		return fmt.Errorf("wipe tenant %s: %w", scope, ErrWipeUnsupported)
	}
	err := deleteTenant(e, scope)
	wipes.notify(e, scope)
	return err
}

// deleteTenant range-deletes every family of scope, then writes the
// durable fence.
func deleteTenant(e Engine, scope TenantScope) error {
	for _, cf := range Families() {
		if err := e.DeleteRange(TenantAll(scope, cf)); err != nil {
			return fmt.Errorf("wipe tenant %s: delete %s: %w", scope, cf, err)
		}
	}
	// The fence deletes a key that no subsystem writes (the trace of the
	// nil query id), so it removes nothing of its own.
	var fence Batch
	fence.Delete(TraceKey(scope, uuid.Nil))
	if err := e.WriteDurable(&fence); err != nil {
		return fmt.Errorf("wipe tenant %s: make the deletes durable: %w", scope, err)
	}
	return nil
}

// OnWipe registers fn to be called with the scope of every later
// WipeTenant on e, until cancel is called or owner is garbage collected.
// fn receives owner as its argument and must not capture it (a method
// expression such as (*Cache).forget is the natural form): a captured owner
// stays reachable from the registry and is never collected.
//
// fn runs on the goroutine that called WipeTenant, after the rows are
// deleted, and must not call WipeTenant itself. A nil owner or fn, or an
// engine WipeTenant refuses (ErrWipeUnsupported), registers nothing.
// cancel may be called any number of times.
func OnWipe[T any](e Engine, owner *T, fn func(owner *T, scope TenantScope)) (cancel func()) {
	if owner == nil || fn == nil || !Identifiable(e) {
		return func() {}
	}
	ref := weak.Make(owner)
	l := &wipeListener{notify: func(s TenantScope) {
		if o := ref.Value(); o != nil {
			fn(o, s)
		}
	}}
	wipes.add(e, l)
	cleanup := runtime.AddCleanup(owner, func(l *wipeListener) { wipes.remove(e, l) }, l)
	var once sync.Once
	return func() {
		once.Do(func() {
			cleanup.Stop()
			wipes.remove(e, l)
		})
	}
}

// wipeListener is one registration; its address is its identity.
type wipeListener struct {
	notify func(TenantScope)
}

// wipeRegistry is the listeners of every engine of the process.
type wipeRegistry struct {
	mu        sync.Mutex
	listeners map[Engine]map[*wipeListener]struct{}
}

var wipes = wipeRegistry{listeners: make(map[Engine]map[*wipeListener]struct{})}

func (r *wipeRegistry) add(e Engine, l *wipeListener) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.listeners[e]
	if set == nil {
		set = make(map[*wipeListener]struct{})
		r.listeners[e] = set
	}
	set[l] = struct{}{}
}

// remove drops l, and the engine's entry with its last listener, so that
// the registry does not keep a closed engine reachable.
func (r *wipeRegistry) remove(e Engine, l *wipeListener) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.listeners[e]
	delete(set, l)
	if len(set) == 0 {
		delete(r.listeners, e)
	}
}

// notify calls the listeners of e outside the registry's lock, so that a
// listener may register or cancel.
func (r *wipeRegistry) notify(e Engine, scope TenantScope) {
	r.mu.Lock()
	ls := make([]*wipeListener, 0, len(r.listeners[e]))
	for l := range r.listeners[e] {
		ls = append(ls, l)
	}
	r.mu.Unlock()
	for _, l := range ls {
		l.notify(scope)
	}
}
