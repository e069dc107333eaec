package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// param is one choice of a range constructor's arguments after the scope.
type param struct {
	cf     storage.ColumnFamily
	id     uuid.UUID
	hash   uint64
	hash2  uint64
	time   storage.Timestamp
	time2  storage.Timestamp
	state  storage.JobState
	prio   uint8
	cursor row
}

// dim names an argument a constructor takes; the matrix tries every fixture
// value of each argument a constructor declares.
type dim uint8

const (
	dimID dim = 1 << iota
	dimHash
	dimHash2
	dimTime
	dimTime2
	dimState
	dimPrio
)

// constructor is one ScanRange constructor with the rows it must select,
// stated on the typed components: the model the engine's answer is checked
// against. Adding a constructor to storage means adding an entry here.
type constructor struct {
	name string
	// system marks a SystemScope constructor: it runs once, for the system
	// scope, instead of once per tenant.
	system bool
	// crossesScopes marks the full-family sweep: its rows come from every
	// scope. Every other range must return rows of its own scope only.
	crossesScopes bool
	// families are tried as param.cf; nil for constructors of one family.
	families []storage.ColumnFamily
	// cursors tries every fixture cursor of param.cf as param.cursor.
	cursors bool
	dims    dim
	build   func(s storage.TenantScope, p param) (storage.ScanRange, error)
	// want reports whether a row of the range's scope is in the range.
	want func(p param, r row) bool
}

var (
	allFamilies      = storage.Families()
	entityFamilies   = []storage.ColumnFamily{storage.NodeVersions, storage.EdgeVersions, storage.AdjacencyOut, storage.AdjacencyIn, storage.Vectors, storage.Sources, storage.Spans, storage.Traces}
	temporalFamilies = []storage.ColumnFamily{storage.ValidTimeIndex, storage.TxTimeIndex}
)

// ok adapts a constructor that cannot fail.
func ok(r storage.ScanRange) (storage.ScanRange, error) { return r, nil }

// after is the predicate of a resumed scan: rows of the cursor's family and
// scope that sort after it.
func after(p param, r row) bool {
	return r.family() == p.cf && r.scope == p.cursor.scope && bytes.Compare(r.key.Bytes(), p.cursor.key.Bytes()) > 0
}

// constructors is every ScanRange constructor of the storage package.
var constructors = []constructor{
	{name: "TenantAll", families: allFamilies,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) { return ok(storage.TenantAll(s, p.cf)) },
		want:  func(p param, r row) bool { return r.family() == p.cf }},
	{name: "FromStoredBounds(TenantAll)", families: allFamilies,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			r := storage.TenantAll(s, p.cf)
			lower, upper := r.Bounds()
			return storage.FromStoredBounds(p.cf, lower, upper)
		},
		want: func(p param, r row) bool { return r.family() == p.cf }},
	byID("NodeHistory", storage.NodeVersions, storage.NodeHistory),
	byID("EdgeHistory", storage.EdgeVersions, storage.EdgeHistory),
	byID("AdjacencyOutRange", storage.AdjacencyOut, storage.AdjacencyOutRange),
	byID("AdjacencyInRange", storage.AdjacencyIn, storage.AdjacencyInRange),
	byIDHash("AdjacencyOutTypeRange", storage.AdjacencyOut, storage.AdjacencyOutTypeRange),
	byIDHash("AdjacencyInTypeRange", storage.AdjacencyIn, storage.AdjacencyInTypeRange),
	{name: "ValidTimeFrom", dims: dimTime,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.ValidTimeFrom(s, p.time))
		},
		want: func(p param, r row) bool { return r.family() == storage.ValidTimeIndex && r.f.time <= p.time }},
	{name: "TxTimeBetween", dims: dimTime | dimTime2,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TxTimeBetween(s, p.time, p.time2)
		},
		want: func(p param, r row) bool {
			return r.family() == storage.TxTimeIndex && p.time <= r.f.time && r.f.time <= p.time2
		}},
	byIDHash("VectorHistory", storage.Vectors, storage.VectorHistory),
	byHash("SchemaHistory", storage.Schema, storage.SchemaHistory),
	{name: "EdgeTypeHistory", dims: dimHash,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.EdgeTypeHistory(s, storage.EdgeTypeHash(p.hash)))
		},
		want: func(p param, r row) bool {
			return r.family() == storage.Schema && r.f.hash == uint64(storage.EdgeTypeLabel(storage.EdgeTypeHash(p.hash)))
		}},
	byID("SourceHistory", storage.Sources, storage.SourceHistory),
	byID("SourceSpans", storage.Spans, storage.SourceSpans),
	{name: "JobsInState", dims: dimState,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.JobsInState(s, p.state))
		},
		want: func(p param, r row) bool { return r.family() == storage.Jobs && r.f.kind == uint8(p.state) }},
	{name: "JobsInStatePriority", dims: dimState | dimPrio,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.JobsInStatePriority(s, p.state, p.prio))
		},
		want: func(p param, r row) bool {
			return r.family() == storage.Jobs && r.f.kind == uint8(p.state) && r.f.prio == p.prio
		}},
	byHash("BitmapLabelRange", storage.BitmapIndex, storage.BitmapLabelRange),
	{name: "BitmapPostingsRange", dims: dimHash | dimHash2,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.BitmapPostingsRange(s, storage.LabelHash(p.hash), storage.PropertyHash(p.hash2)))
		},
		want: func(p param, r row) bool {
			return r.family() == storage.BitmapIndex && r.f.hash == p.hash &&
				r.f.kind == uint8(storage.BitmapPosting) && r.f.hash2 == p.hash2
		}},
	{name: "TenantAllAfterEntity", families: entityFamilies, dims: dimID,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TenantAllAfterEntity(s, p.cf, p.id)
		},
		want: func(p param, r row) bool { return r.family() == p.cf && bytes.Compare(r.f.id[:], p.id[:]) > 0 }},
	{name: "TemporalIndexAfter", families: temporalFamilies, cursors: true,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TemporalIndexAfter(s, p.cursor.key)
		},
		want: after},
	{name: "TenantAll.After", families: allFamilies, cursors: true,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TenantAll(s, p.cf).After(p.cursor.key)
		},
		want: after},
	{name: "SystemScope.FullFamily", system: true, crossesScopes: true, families: allFamilies,
		build: func(_ storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.SystemScope{}.FullFamily(p.cf))
		},
		want: func(p param, r row) bool { return r.family() == p.cf }},
	{name: "SystemScope.JobsInState", system: true, dims: dimState,
		build: func(_ storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.SystemScope{}.JobsInState(p.state))
		},
		want: func(p param, r row) bool { return r.family() == storage.Jobs && r.f.kind == uint8(p.state) }},
	{name: "SystemScope.VectorModels", system: true,
		build: func(storage.TenantScope, param) (storage.ScanRange, error) {
			return ok(storage.SystemScope{}.VectorModels())
		},
		want: func(_ param, r row) bool { return r.family() == storage.Schema }},
	{name: "SystemScope.VectorModelHistory", system: true, dims: dimHash,
		build: func(_ storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.SystemScope{}.VectorModelHistory(storage.ModelID(p.hash)))
		},
		want: func(p param, r row) bool { return r.family() == storage.Schema && r.f.hash == p.hash }},
}

// byID is a constructor that selects the rows of family cf with one
// leading id.
func byID(name string, cf storage.ColumnFamily, f func(storage.TenantScope, uuid.UUID) storage.ScanRange) constructor {
	return constructor{name: name, dims: dimID,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) { return ok(f(s, p.id)) },
		want:  func(p param, r row) bool { return r.family() == cf && r.f.id == p.id }}
}

// byIDHash is a constructor that selects the rows of family cf with one
// leading id and the hash after it.
func byIDHash[H ~uint64](name string, cf storage.ColumnFamily, f func(storage.TenantScope, uuid.UUID, H) storage.ScanRange) constructor {
	return constructor{name: name, dims: dimID | dimHash,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) { return ok(f(s, p.id, H(p.hash))) },
		want:  func(p param, r row) bool { return r.family() == cf && r.f.id == p.id && r.f.hash == p.hash }}
}

// byHash is a constructor that selects the rows of family cf with one
// leading hash.
func byHash[H ~uint64](name string, cf storage.ColumnFamily, f func(storage.TenantScope, H) storage.ScanRange) constructor {
	return constructor{name: name, dims: dimHash,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) { return ok(f(s, H(p.hash))) },
		want:  func(p param, r row) bool { return r.family() == cf && r.f.hash == p.hash }}
}

// params returns every combination of the constructor's arguments over the
// fixture's values.
func (c constructor) params(fx *fixture, v *values) []param {
	ps := []param{{}}
	// each replaces every param by the params f derives from it.
	each := func(f func(p param, add func(param))) {
		var out []param
		for _, p := range ps {
			f(p, func(q param) { out = append(out, q) })
		}
		ps = out
	}
	forEach := func(d dim, n int, set func(p *param, i int)) {
		if c.dims&d == 0 {
			return
		}
		each(func(p param, add func(param)) {
			for i := range n {
				set(&p, i)
				add(p)
			}
		})
	}
	if c.families != nil {
		each(func(p param, add func(param)) {
			for _, cf := range c.families {
				p.cf = cf
				add(p)
			}
		})
	}
	if c.cursors {
		each(func(p param, add func(param)) {
			for _, cur := range fx.cursors[p.cf] {
				p.cursor = cur
				add(p)
			}
		})
	}
	forEach(dimID, len(v.ids), func(p *param, i int) { p.id = v.ids[i] })
	forEach(dimHash, len(v.hashes), func(p *param, i int) { p.hash = v.hashes[i] })
	forEach(dimHash2, len(v.hashes), func(p *param, i int) { p.hash2 = v.hashes[i] })
	forEach(dimTime, len(v.times), func(p *param, i int) { p.time = v.times[i] })
	forEach(dimTime2, len(v.times), func(p *param, i int) { p.time2 = v.times[i] })
	forEach(dimState, len(jobStates), func(p *param, i int) { p.state = jobStates[i] })
	forEach(dimPrio, len(v.prios), func(p *param, i int) { p.prio = v.prios[i] })
	return ps
}

// describe renders the arguments the constructor takes.
func (c constructor) describe(s scope, p param) string {
	args := []string{s.name}
	add := func(d dim, format string, v any) {
		if c.dims&d != 0 {
			args = append(args, fmt.Sprintf(format, v))
		}
	}
	if c.families != nil {
		args = append(args, p.cf.String())
	}
	if c.cursors {
		args = append(args, "after "+p.cursor.scope+" "+p.cursor.key.String())
	}
	add(dimID, "id=%s", p.id)
	add(dimHash, "hash=%016x", p.hash)
	add(dimHash2, "hash2=%016x", p.hash2)
	add(dimTime, "time=%d", p.time)
	add(dimTime2, "time2=%d", p.time2)
	add(dimState, "state=%s", p.state)
	add(dimPrio, "prio=%d", p.prio)
	return c.name + "(" + strings.Join(args, ", ") + ")"
}

// rangeCase is one constructor call and the rows its range must return.
type rangeCase struct {
	c     constructor
	p     param
	scope scope
	r     storage.ScanRange
	err   error // the constructor's
	want  []row // in key order
}

// name renders the call for failure messages.
func (rc rangeCase) name() string { return rc.c.describe(rc.scope, rc.p) }

// rangeCases calls every constructor with every argument combination, in
// every tenant (or the system scope), and computes the expected rows from
// the fixture.
func rangeCases(fx *fixture, v *values) []rangeCase {
	var cases []rangeCase
	for _, c := range constructors {
		scopes := tenants
		if c.system {
			scopes = []scope{systemScope}
		}
		for _, s := range scopes {
			for _, p := range c.params(fx, v) {
				rc := rangeCase{c: c, p: p, scope: s}
				rc.r, rc.err = c.build(s.tenant, p)
				families := allFamilies
				if rc.err == nil && rc.r.Valid() {
					families = []storage.ColumnFamily{rc.r.Family()}
				}
				for _, cf := range families {
					for _, r := range fx.rows[cf] {
						if (c.crossesScopes || r.scope == s.name) && c.want(p, r) {
							rc.want = append(rc.want, r)
						}
					}
				}
				cases = append(cases, rc)
			}
		}
	}
	return cases
}

// checkConstructed reports a constructor that refused a range that should
// hold rows, failed otherwise than by declaring the range empty, or
// returned an invalid range.
func (rc rangeCase) checkConstructed() error {
	switch {
	case rc.err != nil && !errors.Is(rc.err, storage.ErrEmptyRange) && !errors.Is(rc.err, storage.ErrOutOfRange):
		return fmt.Errorf("%s: %w", rc.name(), rc.err)
	case rc.err != nil && len(rc.want) > 0:
		return fmt.Errorf("%s: refused (%v) a range that holds %d rows, e.g. %s", rc.name(), rc.err, len(rc.want), rc.want[0].key)
	case rc.err == nil && !rc.r.Valid():
		return fmt.Errorf("%s: returned an invalid range and no error", rc.name())
	}
	return nil
}
