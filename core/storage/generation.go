package storage

import (
	"errors"
	"fmt"
	"slices"
)

// A tenant's generation (CounterGeneration) says which state of the
// tenant the caches of every process may describe. Changes that make
// what a subsystem caches of a tenant untrue, rather than merely
// incomplete, advance it in their own batch: a wipe, an erasure (whole
// tenant or one entity, and a redaction), an import. A subsystem
// validates its caches of a tenant at the start of every request that
// uses them (RefreshTenant): one point read of the generation, and, when
// another process advanced it, the caches dropped before the request
// reads them. So a request that starts after such a change returned,
// through any process, sees the change.
//
// Additions need no generation: a row another process wrote (an edge
// type registered, a model, a vector) is missing from a cache, never
// contradicted by it, and the subsystems read the store on a miss or
// follow a counter of their own (the vectors sequence).

// ErrOvertaken reports a write that advances counters and was overtaken,
// attempt after attempt, by writes of others that advanced them: the store
// changed under it every time.
var ErrOvertaken = errors.New("overtaken at every attempt: the counters moved each time")

// maxCountedAttempts bounds the attempts of WriteCounted.
const maxCountedAttempts = 100

// WriteCounted writes the batch that build fills with every counter that
// read returns advanced by one in it, durably when durable is set, and
// returns the counters as read by the attempt that landed. When another
// writer advanced one of them meanwhile (ErrConflict, and the counters now
// differ), it reads them again, and builds and writes the batch again; a
// conflict on a condition of build's own (the counters unchanged) is
// returned, as is any other error. build must be safe to call again: it
// fills a fresh batch each time.
func WriteCounted(e Engine, durable bool, read func(Reader) ([]Counter, error), build func(*Batch) error) ([]Counter, error) {
	if e == nil {
		return nil, fmt.Errorf("write counted: %w", ErrNotOpen)
	}
	write := e.Write
	if durable {
		write = e.WriteDurable
	}
	for range maxCountedAttempts {
		cs, err := read(e)
		if err != nil {
			return nil, err
		}
		var b Batch
		if err := build(&b); err != nil {
			return nil, err
		}
		for _, c := range cs {
			b.AdvanceCounter(c, c.Value()+1)
		}
		err = write(&b)
		if err == nil {
			return cs, nil
		}
		if !errors.Is(err, ErrConflict) {
			return nil, err
		}
		now, rerr := read(e)
		if rerr != nil || slices.Equal(now, cs) {
			return nil, errors.Join(err, rerr) // a condition of build's own
		}
	}
	return nil, ErrOvertaken
}

// WriteInvalidating writes, durably, the batch that build fills, with
// scope's generation advanced in it (WriteCounted), and then tells every
// subsystem opened on e in this process to drop what it caches of scope,
// as WipeTenant does, and records that its caches are valid as of the new
// generation. Other processes drop theirs at their next RefreshTenant.
func WriteInvalidating(e Engine, scope TenantScope, build func(*Batch) error) error {
	read := func(r Reader) ([]Counter, error) {
		g, err := ReadGeneration(r, scope)
		return []Counter{g}, err
	}
	cs, err := WriteCounted(e, true, read, build)
	if err != nil {
		return fmt.Errorf("write invalidating %s: %w", scope, err)
	}
	if Identifiable(e) {
		wipes.see(e, scope, cs[0].Value()+1)
		wipes.notify(e, scope)
	}
	return nil
}

// RefreshTenant validates what the subsystems opened on e in this process
// cache of tenant scope: it reads the tenant's generation (one point
// read), and if this process has not validated its caches against that
// generation yet (another process advanced it: a wipe, an erasure, an
// import), it calls every listener registered on e with OnWipe for scope,
// as WipeTenant does, so that each drops what it caches of the tenant.
// Subsystems call it at the start of each request that uses a cache of
// the tenant; a request that starts after a change returned, through any
// process, then sees it. A cache entry filled by a request that began
// before the change goes to the structures the drop detached, never to
// the fresh ones: every subsystem drops by replacing.
//
// An engine that cannot key the registry (Identifiable false) has no
// registered caches: RefreshTenant reads nothing.
func RefreshTenant(e Engine, scope TenantScope) error {
	if scope.IsZero() {
		return fmt.Errorf("refresh tenant: %w", ErrNilScope)
	}
	if !Identifiable(e) {
		return nil
	}
	g, err := ReadGeneration(e, scope)
	if err != nil {
		return fmt.Errorf("refresh tenant %s: %w", scope, err)
	}
	refresh(e, scope, g)
	return nil
}

// RefreshTenantFrom is RefreshTenant with the tenant's counters already
// read (ReadTenantCounters reads the generation with the tenant's other
// counters, in one request).
func RefreshTenantFrom(e Engine, tc TenantCounters) {
	if !tc.scope.IsZero() && Identifiable(e) {
		refresh(e, tc.scope, tc.Generation)
	}
}

// refresh drops the caches of scope on e unless they are valid as of
// generation g.
func refresh(e Engine, scope TenantScope, g Counter) {
	if wipes.see(e, scope, g.Value()) {
		wipes.notify(e, scope)
	}
}
