package storagetest

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
)

// testForeignCursors hands every cursor helper of ScanRange cursors that do
// not belong to the range: a row of another scope (tenant or system) or of
// another family, and every forged key. Each must be refused with
// ErrOutOfRange, so that no scan can resume into a neighbour's rows; a
// cursor of the range's own scope and family resumes after it, on the
// engine, exactly.
func testForeignCursors(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)

	type helper struct {
		name string
		// resume builds the range of scope s (the system scope when s is
		// systemScope) resumed after cursor; mine says whether a cursor
		// row belongs to it.
		resume func(s scope, cursor storage.Key) (storage.ScanRange, error)
		mine   func(s scope, c row) bool
	}
	helpers := []helper{}
	for _, cf := range allFamilies {
		helpers = append(helpers, helper{"TenantAll(" + cf.String() + ").After",
			func(s scope, cursor storage.Key) (storage.ScanRange, error) {
				if s.system {
					return storage.SystemScope{}.FullFamily(cf).After(cursor)
				}
				return storage.TenantAll(s.tenant, cf).After(cursor)
			},
			func(s scope, c row) bool { return c.family() == cf && (s.system || c.scope == s.name) }})
	}
	helpers = append(helpers,
		helper{"TemporalIndexAfter",
			func(s scope, cursor storage.Key) (storage.ScanRange, error) {
				return storage.TemporalIndexAfter(s.tenant, cursor)
			},
			func(s scope, c row) bool {
				return (c.family() == storage.ValidTimeIndex || c.family() == storage.TxTimeIndex) && c.scope == s.name
			}},
		helper{"SystemScope.JobsInState(queued).After",
			func(_ scope, cursor storage.Key) (storage.ScanRange, error) {
				return storage.SystemScope{}.JobsInState(storage.JobQueued).After(cursor)
			},
			func(_ scope, c row) bool {
				return c.family() == storage.Jobs && c.scope == systemScope.name && c.f[0] == storage.JobQueued
			}},
	)

	var cursors []row
	for _, cf := range allFamilies {
		cursors = append(cursors, fx.cursors[cf]...)
	}
	tried := 0
	for _, hp := range helpers {
		for _, s := range allScopes {
			if s.system && hp.name == "TemporalIndexAfter" {
				continue // it takes a TenantScope
			}
			for _, c := range cursors {
				r, err := hp.resume(s, c.key)
				tried++
				if !hp.mine(s, c) {
					if err == nil || !errors.Is(err, storage.ErrOutOfRange) {
						t.Errorf("%s in scope %s after a cursor of %s %s = %v, %v; want ErrOutOfRange", hp.name, s.name, c.scope, c.key, r, err)
					}
					continue
				}
				if errors.Is(err, storage.ErrEmptyRange) {
					continue // the cursor is the range's last key
				}
				must(t, err)
				for _, kv := range mustScan(t, e, r) {
					if !s.system && !s.owns(kv.Key) {
						t.Errorf("%s in scope %s after its own cursor yielded %s", hp.name, s.name, describe(r.Family(), kv.Key))
					}
				}
			}
			for _, f := range forgedKeys() {
				if r, err := hp.resume(s, f.key); !errors.Is(err, storage.ErrOutOfRange) && !errors.Is(err, storage.ErrInvalidRange) {
					t.Errorf("%s in scope %s after a cursor with %s = %v, %v; want ErrOutOfRange", hp.name, s.name, f.name, r, err)
				}
			}
		}
	}
	t.Logf("%d cursors tried", tried)
}
