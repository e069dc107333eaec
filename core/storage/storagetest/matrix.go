package storagetest

import (
	"testing"

	"telha.dev/core/storage"
)

// maxFailedCases stops a matrix that fails wholesale before it floods the
// log.
const maxFailedCases = 20

// testRangeMatrix is the tenant-isolation matrix (docs/design.md,
// Invariants 3) and the exact bounds test in one pass: every ScanRange constructor, with every fixture
// value of its arguments, in every tenant, must return exactly the rows the
// typed model selects, and never a row of another scope. The fixture puts
// rows just below each lower bound and at each upper bound (edge values,
// low and high tails, scopes adjacent in byte order), so an off-by-one
// bound shows as a missing or an extra row.
func testRangeMatrix(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	cases := rangeCases(fx, &edgeValues)
	failed := 0
	for _, rc := range cases {
		if failed == maxFailedCases {
			t.Fatalf("stopped after %d failed ranges", failed)
		}
		if err := rc.checkConstructed(); err != nil {
			t.Error(err)
			failed++
			continue
		}
		if rc.err != nil {
			continue // an empty range, rightly refused
		}
		cf := rc.r.Family()
		got := mustScan(t, e, rc.r)
		ok := true
		for _, kv := range got {
			if _, err := storage.Decode(cf, kv.Key); err != nil {
				t.Errorf("%s: returned a key that does not decode: %v", rc.name(), err)
				ok = false
			}
			if !rc.c.crossesScopes && !rc.scope.owns(kv.Key) {
				t.Errorf("%s: ISOLATION: returned a row of another scope: %s", rc.name(), describe(cf, kv.Key))
				ok = false
			}
		}
		want := make([]storage.KV, len(rc.want))
		for i, r := range rc.want {
			want[i] = r.kv()
		}
		for _, d := range diffRows(cf, want, got) {
			t.Errorf("%s: %s", rc.name(), d)
			ok = false
		}
		if !ok {
			failed++
		}
	}
	t.Logf("%d ranges over %d rows in %d scopes", len(cases), fx.size(), len(fx.scopes))
}

// testTenantDeleteRange deletes one tenant at a time, TenantAll of every
// family, and demands that every other tenant and the system rows stay
// byte-identical. The order starts with B, whose upper bound is a single
// byte, and includes D, whose ranges run to the end of the family.
func testTenantDeleteRange(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	want := fx.model()
	for _, s := range []scope{tenantB, tenantA, tenantD, tenantC} {
		for _, cf := range allFamilies {
			must(t, e.DeleteRange(storage.TenantAll(s.tenant, cf)))
		}
		for _, r := range fx.rowsOf(s) {
			delete(want, r.key)
		}
		checkTables(t, "after deleting tenant "+s.name, e, want.tables())
	}
}

// testDeleteRangeConfinement deletes the ranges of a random sample of the
// matrix, one after another, and checks after each that exactly the range's
// rows are gone: rows just outside it stay, byte-identical.
func testDeleteRangeConfinement(t *testing.T, h Harness) {
	const sample = 100
	rng := newRand(t)
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	want := fx.model()
	cases := rangeCases(fx, &edgeValues)
	rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
	n := 0
	for _, rc := range cases {
		if rc.err != nil || rc.c.crossesScopes || !rc.r.Valid() {
			continue
		}
		if n == sample {
			break
		}
		n++
		if err := e.DeleteRange(rc.r); err != nil {
			t.Fatalf("DeleteRange %s: %v", rc.name(), err)
		}
		for _, r := range rc.want {
			delete(want, r.key)
		}
		cf := rc.r.Family()
		got := mustScan(t, e, storage.SystemScope{}.FullFamily(cf))
		if d := diffRows(cf, want.rows(cf), got); len(d) > 0 {
			t.Fatalf("after DeleteRange %s: %v", rc.name(), d)
		}
	}
	checkTables(t, "after all deletions", e, want.tables())
}

// rowsOf returns the fixture's rows of scope s.
func (fx *fixture) rowsOf(s scope) []row {
	var out []row
	for _, cf := range allFamilies {
		for _, r := range fx.rows[cf] {
			if r.scope == s.name {
				out = append(out, r)
			}
		}
	}
	return out
}
