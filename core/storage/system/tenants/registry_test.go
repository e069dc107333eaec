package tenants

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// scopeN returns a distinct tenant scope per n.
func scopeN(t testing.TB, n byte) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.UUID{0x10, n}, uuid.UUID{0x20, n})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProvisionGetListByName(t *testing.T) {
	storagetest.EachDurableEngine(t, func(t *testing.T, env *storagetest.Env) {
		names := []string{"zeta", "acme-corp", "b.2_x"}
		for i, name := range names {
			if err := Provision(env.Engine, scopeN(t, byte(i+1)), name); err != nil {
				t.Fatalf("provision %q: %v", name, err)
			}
		}
		e := env.Reopen(t) // the rows are durable
		for i, name := range names {
			s := scopeN(t, byte(i+1))
			got, err := Get(e, s)
			if err != nil || got.Scope != s || got.Name != name || got.State != Active || !got.Changed.Equal(got.Provisioned) {
				t.Fatalf("get %s = %+v, %v; want active %q", s, got, err, name)
			}
			byName, err := ByName(e, name)
			if err != nil || byName.Scope != s {
				t.Fatalf("by name %q = %+v, %v; want scope %s", name, byName, err, s)
			}
		}
		all, err := List(e)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, t := range all {
			listed = append(listed, t.Name)
		}
		if want := "acme-corp b.2_x zeta"; strings.Join(listed, " ") != want {
			t.Fatalf("list = %q, want %q (by name)", listed, want)
		}
	})
}

func TestProvisionRefuses(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		if err := Provision(e, scopeN(t, 1), "acme"); err != nil {
			t.Fatal(err)
		}
		if err := Provision(e, scopeN(t, 2), "gone"); err != nil {
			t.Fatal(err)
		}
		for _, st := range []State{Erasing, Erased} {
			if err := SetState(e, scopeN(t, 2), st); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name  string
			scope storage.TenantScope
			tname string
			want  error
		}{
			{"zero scope", storage.TenantScope{}, "x", ErrNilScope},
			{"same scope", scopeN(t, 1), "other", ErrExists},
			{"same scope and name", scopeN(t, 1), "acme", ErrExists},
			{"erased scope", scopeN(t, 2), "gone", ErrExists},
			{"same name", scopeN(t, 3), "acme", ErrNameTaken},
			{"empty name", scopeN(t, 3), "", ErrInvalidName},
			{"long name", scopeN(t, 3), strings.Repeat("a", MaxNameLen+1), ErrInvalidName},
			{"upper case", scopeN(t, 3), "Acme", ErrInvalidName},
			{"colon", scopeN(t, 3), "a:b", ErrInvalidName},
			{"space", scopeN(t, 3), "a b", ErrInvalidName},
			{"leading dash", scopeN(t, 3), "-a", ErrInvalidName},
			{"non-ascii", scopeN(t, 3), "café", ErrInvalidName},
			{"nul", scopeN(t, 3), "a\x00", ErrInvalidName},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := Provision(e, tt.scope, tt.tname); !errors.Is(err, tt.want) {
					t.Fatalf("provision = %v, want %v", err, tt.want)
				}
			})
		}
		all, err := List(e)
		if err != nil || len(all) != 2 {
			t.Fatalf("list after refusals = %+v, %v; want the two tenants", all, err)
		}
		// The erased tenant's name is free again.
		if err := Provision(e, scopeN(t, 4), "gone"); err != nil {
			t.Fatalf("provision the erased tenant's name: %v", err)
		}
	})
}

func TestNoEngine(t *testing.T) {
	s := scopeN(t, 1)
	for name, err := range map[string]error{
		"provision": Provision(nil, s, "a"),
		"set state": SetState(nil, s, Erasing),
		"get":       second(Get(nil, s)),
		"by name":   second(ByName(nil, "a")),
		"list":      second(List(nil)),
	} {
		if !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s without an engine = %v, want storage.ErrNotOpen", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestUnknownTenant(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		if _, err := Get(e, scopeN(t, 9)); !errors.Is(err, ErrUnknownTenant) {
			t.Errorf("get = %v, want ErrUnknownTenant", err)
		}
		if _, err := Get(e, storage.TenantScope{}); !errors.Is(err, ErrNilScope) {
			t.Errorf("get zero scope = %v, want ErrNilScope", err)
		}
		if _, err := ByName(e, "nobody"); !errors.Is(err, ErrUnknownTenant) {
			t.Errorf("by name = %v, want ErrUnknownTenant", err)
		}
		if _, err := ByName(e, "No Body"); !errors.Is(err, ErrInvalidName) {
			t.Errorf("by bad name = %v, want ErrInvalidName", err)
		}
		if err := SetState(e, scopeN(t, 9), Erasing); !errors.Is(err, ErrUnknownTenant) {
			t.Errorf("set state = %v, want ErrUnknownTenant", err)
		}
	})
}

func TestSetStateTransitions(t *testing.T) {
	states := []State{0, Active, Erasing, Erased, Importing, 5}
	legal := map[[2]State]bool{
		{Active, Importing}: true, {Importing, Active}: true, {Active, Erasing}: true, {Importing, Erasing}: true,
		{Erasing, Erasing}: true, {Erasing, Erased}: true,
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		n := byte(0)
		// reach provisions a tenant and walks it to state from.
		reach := func(from State) storage.TenantScope {
			n++
			s := scopeN(t, n)
			if err := Provision(e, s, fmt.Sprintf("t%d", n)); err != nil {
				t.Fatal(err)
			}
			path := map[State][]State{Importing: {Importing}, Erasing: {Erasing}, Erased: {Erasing, Erased}}
			for _, st := range path[from] {
				if err := SetState(e, s, st); err != nil {
					t.Fatal(err)
				}
			}
			return s
		}
		for _, from := range []State{Active, Importing, Erasing, Erased} {
			for _, to := range states {
				s := reach(from)
				before, _ := Get(e, s)
				err := SetState(e, s, to)
				after, gerr := Get(e, s)
				if gerr != nil {
					t.Fatal(gerr)
				}
				if legal[[2]State{from, to}] {
					if err != nil || after.State != to || after.Changed.Before(before.Changed) {
						t.Errorf("%s -> %s = %v, row %+v; want done", from, to, err, after)
					}
					if to == Erased && after.Name != "" {
						t.Errorf("erased tenant keeps its name %q", after.Name)
					}
					continue
				}
				if !errors.Is(err, ErrBadTransition) || after != before {
					t.Errorf("%s -> %s = %v, row %+v; want ErrBadTransition and the row unchanged", from, to, err, after)
				}
			}
		}
	})
}

// Concurrent provisionings of one name: exactly one wins.
func TestProvisionRace(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { errs[i] = Provision(env.Engine, scopeN(t, byte(i+1)), "contested") })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrNameTaken):
				t.Errorf("provision = %v, want nil or ErrNameTaken", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d provisionings won, want 1", won)
		}
	})
}

// Rows that do not decode, or whose value contradicts the key, fail every
// read with ErrCorrupt (and storage.ErrCorrupt), never a panic.
func TestCorruptRows(t *testing.T) {
	s := scopeN(t, 1)
	good := encodeRecord(Tenant{Scope: s, Name: "acme", State: Active})
	recordKey := storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(s))
	tests := []struct {
		name  string
		key   storage.Key
		value []byte
	}{
		{"empty value", recordKey, nil},
		{"short value", recordKey, good[:10]},
		{"version 2", recordKey, append([]byte{2}, good[1:]...)},
		{"state 0", recordKey, append([]byte{1, 0}, good[2:]...)},
		{"state 9", recordKey, append([]byte{1, 9}, good[2:]...)},
		{"name longer than stored", recordKey, append(good[:len(good):len(good)], 'x')},
		{"name cut", recordKey, good[:len(good)-1]},
		{"bad name", recordKey, encodeRecord(Tenant{Scope: s, Name: "A B", State: Active})},
		{"erased with a name", recordKey, encodeRecord(Tenant{Scope: s, Name: "acme", State: Erased})},
		{"another scope's row", recordKey, encodeRecord(Tenant{Scope: scopeN(t, 2), Name: "acme", State: Active})},
		{"nil scope", recordKey, append(append([]byte{1, 1}, make([]byte, 32)...), good[34:]...)},
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := env.Engine
				if err := e.Put(tt.key, tt.value); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = e.Delete(tt.key) })
				if _, err := List(e); !errors.Is(err, ErrCorrupt) || !errors.Is(err, storage.ErrCorrupt) {
					t.Errorf("list = %v, want ErrCorrupt", err)
				}
				if _, err := Get(e, s); !errors.Is(err, ErrCorrupt) {
					t.Errorf("get = %v, want ErrCorrupt", err)
				}
				if err := Provision(e, scopeN(t, 3), "other"); !errors.Is(err, ErrCorrupt) {
					t.Errorf("provision over a corrupt registry = %v, want ErrCorrupt", err)
				}
			})
		}
	})
}
