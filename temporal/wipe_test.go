package temporal

import (
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestWipeForgetsTenant: a wiped tenant's transaction high-water mark is
// read again before its next write, and the clock never goes back.
func TestWipeForgetsTenant(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		for _, scope := range scopes {
			assertNode(t, s, scope, idA, always(), name("before"))
		}
		before := s.Clock().Last()
		if err := storage.WipeTenant(env.Engine, scopes[0]); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		wiped, kept := s.tenants[scopes[0]] != nil, s.tenants[scopes[1]] != nil
		s.mu.Unlock()
		if wiped || !kept {
			t.Fatalf("after the wipe: wiped tenant known %t, other tenant known %t", wiped, kept)
		}
		if got := nameAt(t, s, scopes[0], idA, Current(5)); got != "" {
			t.Fatalf("wiped tenant still reads %q", got)
		}
		if tx := assertNode(t, s, scopes[0], idA, always(), name("after")); tx <= before {
			t.Fatalf("tx %d after the wipe is not above %d", tx, before)
		}
		if got := nameAt(t, s, scopes[1], idA, Current(5)); got != "before" {
			t.Fatalf("the other tenant reads %q", got)
		}
	})
}
