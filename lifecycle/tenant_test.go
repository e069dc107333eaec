package lifecycle

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
)

func TestParseScope(t *testing.T) {
	good := "0195f4a8-0000-7000-8000-000000000001:0195f4a8-0000-7000-8000-0000000000aa"
	s, err := ParseScope(good)
	if err != nil || FormatScope(s) != good {
		t.Fatalf("parse %q = %s, %v", good, s, err)
	}
	for _, bad := range []string{
		"", "acme", ":", good + ":x", "0195f4a8-0000-7000-8000-000000000001",
		"00000000-0000-0000-0000-000000000000:0195f4a8-0000-7000-8000-0000000000aa",
		"0195f4a8-0000-7000-8000-000000000001:00000000-0000-0000-0000-000000000000",
		"00000000-0000-0000-0000-000000000000:00000000-0000-0000-0000-000000000000",
		"not-a-uuid:0195f4a8-0000-7000-8000-0000000000aa",
	} {
		if _, err := ParseScope(bad); !errors.Is(err, ErrBadScope) {
			t.Errorf("parse %q = %v, want ErrBadScope", bad, err)
		}
	}
	if _, err := ParseScope("00000000-0000-0000-0000-000000000000:00000000-0000-0000-0000-000000000000"); !errors.Is(err, storage.ErrNilScope) {
		t.Errorf("parse of the system scope = %v, want ErrNilScope", err)
	}
}

func TestProvisionAndLookup(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		a := FormatScope(scopeN(t, 1))
		got, err := Provision(e, scopeN(t, 1), "acme")
		if err != nil || got.Name != "acme" || got.State != tenants.Active || FormatScope(got.Scope) != a {
			t.Fatalf("provision = %+v, %v", got, err)
		}
		if _, err := Provision(e, scopeN(t, 1), "again"); !errors.Is(err, ErrExists) {
			t.Fatalf("provision again = %v, want ErrExists", err)
		}
		for _, arg := range []string{a, "acme"} {
			got, ok, err := Lookup(e, arg)
			if err != nil || !ok || got.Name != "acme" {
				t.Fatalf("look up %q = %+v, %v, %v", arg, got, ok, err)
			}
		}
		other := FormatScope(scopeN(t, 2))
		got, ok, err := Lookup(e, other)
		if err != nil || ok || FormatScope(got.Scope) != other {
			t.Fatalf("look up an unregistered scope = %+v, %v, %v; want the scope, not ok", got, ok, err)
		}
		if _, _, err := Lookup(e, "nobody"); !errors.Is(err, tenants.ErrUnknownTenant) || !errors.Is(err, ErrBadScope) {
			t.Fatalf("look up an unknown name = %v", err)
		}
		all, err := List(e)
		if err != nil || len(all) != 1 {
			t.Fatalf("list = %+v, %v", all, err)
		}
	})
}
