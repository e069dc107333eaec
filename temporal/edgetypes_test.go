package temporal

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestDefaultRegistryFailsLoud: a Store opened without EdgeTypes persists
// every edge type in the registry, so a colliding name is refused even
// there, and the registration survives a restart.
func TestDefaultRegistryFailsLoud(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		linkAB(t, s, scope, "KNOWS")
		reg := NewEdgeTypeRegistry(env.Reopen(t), nil)
		if h, err := reg.Hash(scope, "KNOWS"); err != nil || h != storage.HashEdgeType("KNOWS") {
			t.Fatalf("KNOWS after a default store wrote it: %x, %v", h, err)
		}
		// A colliding name is refused against the persisted row.
		s = Open(env.Engine, Options{Clock: NewClock(newWall(5000).now), EdgeTypes: NewEdgeTypeRegistry(env.Engine, func(string) storage.EdgeTypeHash {
			return storage.HashEdgeType("KNOWS")
		})})
		if _, err := s.AssertEdge(scope, EdgeFact{ID: idD, From: idA, To: idB, Type: "LIKES", Valid: always()}); !errors.Is(err, ErrEdgeTypeCollision) {
			t.Fatalf("colliding type: %v", err)
		}
	})
}

// TestRegistryRewritesWhatWasDeleted deletes a tenant's rows behind the
// registry's back, after it cached the tenant's type: the next edge of the
// type must write the registration again, or the edge would be unreadable
// after a restart.
func TestRegistryRewritesWhatWasDeleted(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		reg := NewEdgeTypeRegistry(env.Engine, nil)
		s := openStore(env, Options{EdgeTypes: reg})
		scope := storagetest.TenantScope(t)
		build := func() {
			linkAB(t, s, scope, "KNOWS")
			if _, err := reg.Hash(scope, "KNOWS"); err != nil {
				t.Fatal(err)
			}
		}
		build()
		for _, cf := range storage.Families() {
			if err := env.Engine.DeleteRange(storage.TenantAll(scope, cf)); err != nil {
				t.Fatal(err)
			}
		}
		build()
		if _, err := NewEdgeTypeRegistry(env.Reopen(t), nil).Hash(scope, "KNOWS"); err != nil {
			t.Fatalf("KNOWS after rebuilding a deleted tenant and restarting: %v", err)
		}
	})
}

// TestRegistryForgetsWipedTenant: with a colliding hash, a wiped tenant may
// register a different name under the hash its cache still knows; after
// the wipe the registry must answer with the new name only.
func TestRegistryForgetsWipedTenant(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		colliding := func(string) storage.EdgeTypeHash { return 42 }
		reg := NewEdgeTypeRegistry(env.Engine, colliding)
		s := openStore(env, Options{EdgeTypes: reg})
		scopes := storagetest.TenantScopes(t, 2)
		linkAB(t, s, scopes[1], "KNOWS")
		for i, typ := range []string{"KNOWS", "LIKES"} {
			linkAB(t, s, scopes[0], typ)
			if name, err := reg.Name(scopes[0], 42); err != nil || name != typ {
				t.Fatalf("round %d: name of 42: %q, %v; want %q", i, name, err, typ)
			}
			if err := storage.WipeTenant(env.Engine, scopes[0]); err != nil {
				t.Fatal(err)
			}
			if _, err := reg.Name(scopes[0], 42); !errors.Is(err, ErrUnknownEdgeType) {
				t.Fatalf("round %d: name of 42 after the wipe: %v", i, err)
			}
		}
		// The other tenant was not wiped and keeps its first type.
		if name, err := reg.Name(scopes[1], 42); err != nil || name != "KNOWS" {
			t.Fatalf("unwiped tenant: %q, %v", name, err)
		}
	})
}

func TestDecodeRegistrationRejects(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":       nil,
		"header only": {1, 'E', 0, 0, 0, 0, 0, 0, 0, 42},
		"version":     {2, 'E', 0, 0, 0, 0, 0, 0, 0, 42, 'x'},
		"kind":        {1, 'L', 0, 0, 0, 0, 0, 0, 0, 42, 'x'},
		"other hash":  {1, 'E', 0, 0, 0, 0, 0, 0, 0, 43, 'x'},
	} {
		if _, err := decodeRegistration(b, 42); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, err := decodeRegistration([]byte{1, 'E', 0, 0, 0, 0, 0, 0, 0, 42, 'x'}, 42); err != nil || got != "x" {
		t.Errorf("valid row: %q, %v", got, err)
	}
}
