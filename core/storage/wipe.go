package storage

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"
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
//
// Other processes on the same store (replicas on one etcd cluster) are
// told through the store: every wipe, erasure and import advances the
// tenant's generation (ReadGeneration) in its own batch, and a process
// that reads a generation it has not seen drops its caches of the tenant
// (RefreshTenant) before it uses them.

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
// The 13 families are deleted by one durable batch of range deletions
// (AddTenantDeletion): all of them or, after a crash, none. Limits:
//   - The deletes leave tombstones; the bytes stay in the engine's files
//     until compaction. A wipe is not an erasure: telha.dev/lifecycle
//     erases a tenant (Compact, then a verification scan, recorded in the
//     ledger).
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
	if err != nil {
		wipes.notify(e, scope) // rows may be gone all the same
	}
	return err
}

// deleteTenant range-deletes every family of scope in one durable batch,
// which advances the tenant's generation.
func deleteTenant(e Engine, scope TenantScope) error {
	err := WriteInvalidating(e, scope, func(b *Batch) error {
		AddTenantDeletion(b, scope)
		return nil
	})
	if err != nil {
		return fmt.Errorf("wipe tenant %s: %w", scope, err)
	}
	return nil
}

// AddTenantDeletion records in b the deletion of every row of scope:
// TenantAll of every family (TenantRanges). The zero scope poisons b.
func AddTenantDeletion(b *Batch, scope TenantScope) {
	for _, r := range TenantRanges(scope) {
		b.DeleteRange(r)
	}
}

// ForgetTenant calls every listener registered on e with OnWipe for scope,
// as WipeTenant does after its deletion, without deleting anything: for
// rows of scope removed by other means (a tenant or an entity erased by
// telha.dev/lifecycle), so that no subsystem keeps serving what it cached
// of them. Dropping a cache is always safe. Other processes learn of the
// change from the tenant's generation, which the change advanced
// (WriteInvalidating).
func ForgetTenant(e Engine, scope TenantScope) error {
	if scope.IsZero() {
		return fmt.Errorf("forget tenant: %w", ErrNilScope)
	}
	if !Identifiable(e) {
		return fmt.Errorf("forget tenant %s: %w", scope, ErrWipeUnsupported)
	}
	wipes.notify(e, scope)
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

// wipeRegistry is the listeners of every engine of the process, and the
// generation of each tenant that the process's caches were last
// validated against (RefreshTenant).
type wipeRegistry struct {
	mu        sync.Mutex
	listeners map[Engine]map[*wipeListener]struct{}
	seen      map[Engine]map[TenantScope]uint64
}

var wipes = wipeRegistry{
	listeners: make(map[Engine]map[*wipeListener]struct{}),
	seen:      make(map[Engine]map[TenantScope]uint64),
}

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
		delete(r.seen, e)
	}
}

// see records that the caches of scope on e are valid as of generation g,
// and reports whether that is news: g is later than every generation
// recorded, or the first. Generations only grow, so an older reading
// (taken before a newer one that another goroutine recorded) changes
// nothing. An engine without listeners caches nothing: nothing is
// recorded, so that the registry keeps no engine reachable that no
// subsystem uses.
func (r *wipeRegistry) see(e Engine, scope TenantScope, g uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.listeners[e]) == 0 {
		return false
	}
	seen := r.seen[e]
	if seen == nil {
		seen = make(map[TenantScope]uint64)
		r.seen[e] = seen
	}
	last, ok := seen[scope]
	if ok && g <= last {
		return false
	}
	seen[scope] = g
	return true
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
