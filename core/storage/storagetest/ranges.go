package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// param is one choice of a range constructor's arguments after the scope.
type param struct {
	cf     storage.ColumnFamily
	id     uuid.UUID
	hash   uint64
	time   storage.Timestamp
	time2  storage.Timestamp
	cursor row
	// args are the arguments of a prefix scan of the layout table.
	args []reflect.Value
}

// dim names an argument a special constructor takes; the matrix tries
// every fixture value of each argument a constructor declares.
type dim uint8

const (
	dimID dim = 1 << iota
	dimHash
	dimTime
	dimTime2
)

// constructor is one ScanRange constructor with the rows it must select,
// stated on the typed components: the model the engine's answer is checked
// against. The prefix scans come from the layout table (scanConstructors);
// the special constructors are written here.
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
	// calls, if set, lists the argument lists of a prefix scan instead.
	calls func(v *values) [][]reflect.Value
	build func(s storage.TenantScope, p param) (storage.ScanRange, error)
	// want reports whether a row of the range's scope is in the range.
	want func(p param, r row) bool
}

var (
	allFamilies      = storage.Families()
	entityFamilies   = slices.DeleteFunc(storage.Families(), func(cf storage.ColumnFamily) bool { return !cf.KeyedByEntity() })
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
var constructors = append(scanConstructors(), specialConstructors...)

// scanConstructors are the prefix scans of the layout table: each selects
// the rows of its family whose first fields are its arguments (or the
// layout's fixed bytes).
func scanConstructors() []constructor {
	var out []constructor
	for _, l := range storage.Layouts() {
		for _, sc := range l.Scans() {
			fn := reflect.ValueOf(sc.Func())
			prefix := storage.Layout{Fields: l.Fields[:sc.Prefix]}
			system := fn.Type().In(0) == systemType
			out = append(out, constructor{
				name: sc.Name(), system: system,
				calls: func(v *values) [][]reflect.Value { return v.calls(fn.Type(), prefix, sc.Prefix) },
				build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
					scope := reflect.ValueOf(s)
					if system {
						scope = reflect.ValueOf(storage.SystemScope{})
					}
					return ok(fn.Call(append([]reflect.Value{scope}, p.args...))[0].Interface().(storage.ScanRange))
				},
				want: func(p param, r row) bool {
					if r.family() != l.Family || len(r.f) < sc.Prefix {
						return false
					}
					want := rowFields(prefix, p.args)
					for i := range want {
						if !reflect.DeepEqual(r.f[i], want[i]) {
							return false
						}
					}
					return true
				},
			})
		}
	}
	return out
}

var specialConstructors = []constructor{
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
	{name: "ValidTimeFrom", dims: dimTime,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.ValidTimeFrom(s, p.time))
		},
		want: func(p param, r row) bool {
			return r.family() == storage.ValidTimeIndex && r.f[0].(storage.Timestamp) <= p.time
		}},
	{name: "TxTimeBetween", dims: dimTime | dimTime2,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TxTimeBetween(s, p.time, p.time2)
		},
		want: func(p param, r row) bool {
			return r.family() == storage.TxTimeIndex && p.time <= r.f[0].(storage.Timestamp) && r.f[0].(storage.Timestamp) <= p.time2
		}},
	{name: "EdgeTypeHistory", dims: dimHash,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return ok(storage.EdgeTypeHistory(s, storage.EdgeTypeHash(p.hash)))
		},
		want: func(p param, r row) bool {
			return r.family() == storage.Schema && r.f[0] == storage.EdgeTypeLabel(storage.EdgeTypeHash(p.hash))
		}},
	{name: "TenantAllAfterEntity", families: entityFamilies, dims: dimID,
		build: func(s storage.TenantScope, p param) (storage.ScanRange, error) {
			return storage.TenantAllAfterEntity(s, p.cf, p.id)
		},
		want: func(p param, r row) bool {
			if r.family() != p.cf {
				return false
			}
			id := r.f[0].(uuid.UUID)
			return bytes.Compare(id[:], p.id[:]) > 0
		}},
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
}

// params returns every combination of the constructor's arguments over the
// fixture's values.
func (c constructor) params(fx *fixture, v *values) []param {
	if c.calls != nil {
		var ps []param
		for _, args := range c.calls(v) {
			ps = append(ps, param{args: args})
		}
		return ps
	}
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
	forEach(dimTime, len(v.times), func(p *param, i int) { p.time = v.times[i] })
	forEach(dimTime2, len(v.times), func(p *param, i int) { p.time2 = v.times[i] })
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
	add(dimTime, "time=%d", p.time)
	add(dimTime2, "time2=%d", p.time2)
	for _, a := range p.args {
		args = append(args, fmt.Sprint(a.Interface()))
	}
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
