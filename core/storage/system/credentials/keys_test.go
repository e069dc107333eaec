package credentials

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
)

// provisioned returns scope n, provisioned in e.
func provisioned(t *testing.T, e storage.Engine, n byte) storage.TenantScope {
	t.Helper()
	s := storagetest.TenantScope(t)
	if err := tenants.Provision(e, s, fmt.Sprintf("tenant-%d", n)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCreateAuthenticateListRevoke(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		a, b := provisioned(t, env.Engine, 1), provisioned(t, env.Engine, 2)
		ka, tokA, err := Create(env.Engine, a, "ci", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		kb, tokB, err := Create(env.Engine, b, "", time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tokA, tokenPrefix) || len(tokA) != TokenLen || strings.Contains(tokA, ka.ID.String()) {
			t.Fatalf("token %q: want %d characters starting %q, the id in hex", tokA, TokenLen, tokenPrefix)
		}
		now := time.Now()
		for _, tc := range []struct {
			tok  string
			want storage.TenantScope
		}{{tokA, a}, {tokB, b}} {
			k, err := Authenticate(env.Engine, tc.tok, now)
			if err != nil || k.Scope != tc.want {
				t.Fatalf("authenticate = %+v, %v; want scope %s", k, err, tc.want)
			}
		}
		keys, err := List(env.Engine)
		if err != nil || len(keys) != 2 {
			t.Fatalf("list = %v, %v; want 2 keys", keys, err)
		}
		if _, err := Revoke(env.Engine, ka.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := Authenticate(env.Engine, tokA, now); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("authenticate a revoked key = %v, want ErrUnauthenticated", err)
		}
		if _, err := Authenticate(env.Engine, tokB, kb.Expires); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("authenticate at expiry = %v, want ErrUnauthenticated", err)
		}
		keys, err = List(env.Engine)
		if err != nil || len(keys) != 2 || keys[0].Revoked.IsZero() == keys[1].Revoked.IsZero() {
			t.Fatalf("list after a revocation = %+v, %v; want one of two revoked", keys, err)
		}
		if _, err := Revoke(env.Engine, uuid.New()); !errors.Is(err, ErrUnknownKey) {
			t.Fatalf("revoke an unknown key = %v, want ErrUnknownKey", err)
		}
	})
}

// Every way a token can fail gets ErrUnauthenticated, and none panics.
func TestAuthenticateRefuses(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		a := provisioned(t, env.Engine, 1)
		_, tok, err := Create(env.Engine, a, "x", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		forged, err := newToken()
		if err != nil {
			t.Fatal(err)
		}
		wrongSecret := tok[:len(tok)-2] + "AA"
		if wrongSecret == tok {
			wrongSecret = tok[:len(tok)-2] + "BA"
		}
		for _, bad := range []string{"", "Bearer " + tok, tok + " ", strings.ToUpper(tok), forged.reveal(), wrongSecret, tok[:len(tok)-1]} {
			if _, err := Authenticate(env.Engine, bad, time.Now()); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("authenticate %q = %v, want ErrUnauthenticated", bad, err)
			}
		}
		if err := tenants.SetState(env.Engine, a, tenants.Erasing); err != nil {
			t.Fatal(err)
		}
		if _, err := Authenticate(env.Engine, tok, time.Now()); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("authenticate a key of an erasing tenant = %v, want ErrUnauthenticated", err)
		}
	})
}

func TestCreateRefuses(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		a := provisioned(t, env.Engine, 1)
		for _, tc := range []struct {
			name    string
			scope   storage.TenantScope
			label   string
			expires time.Time
			want    error
		}{
			{"the zero scope", storage.TenantScope{}, "", time.Time{}, storage.ErrNilScope},
			{"an unknown tenant", storagetest.TenantScope(t), "", time.Time{}, ErrNotActive},
			{"a control character", a, "a\nb", time.Time{}, ErrBadName},
			{"a long name", a, strings.Repeat("x", MaxNameLen+1), time.Time{}, ErrBadName},
			{"an expiry in the past", a, "", time.Now().Add(-time.Second), ErrBadExpiry},
		} {
			if _, _, err := Create(env.Engine, tc.scope, tc.label, tc.expires); !errors.Is(err, tc.want) {
				t.Errorf("%s: create = %v, want %v", tc.name, err, tc.want)
			}
		}
		if keys, err := List(env.Engine); err != nil || len(keys) != 0 {
			t.Fatalf("list after refusals = %v, %v; want none", keys, err)
		}
	})
}

// A tenant's deletion takes all of its keys, every version, and no other
// tenant's.
func TestAddTenantDeletion(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		a, b := provisioned(t, env.Engine, 1), provisioned(t, env.Engine, 2)
		for range 3 {
			k, _, err := Create(env.Engine, a, "", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Revoke(env.Engine, k.ID); err != nil {
				t.Fatal(err)
			}
		}
		kb, tokB, err := Create(env.Engine, b, "", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var batch storage.Batch
		n, err := AddTenantDeletion(env.Engine, &batch, a)
		if err != nil || n != 3 {
			t.Fatalf("AddTenantDeletion = %d, %v; want 3", n, err)
		}
		if err := env.Engine.WriteDurable(&batch); err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, err := range env.Engine.Scan(storage.SystemScope{}.Credentials()) {
			if err != nil {
				t.Fatal(err)
			}
			rows++
		}
		if rows != 1 {
			t.Fatalf("%d credential rows remain, want b's one", rows)
		}
		if k, err := Authenticate(env.Engine, tokB, time.Now()); err != nil || k.ID != kb.ID {
			t.Fatalf("b's key after a's deletion = %+v, %v", k, err)
		}
	})
}

// No row decodes to the system scope, nor a half-nil one.
func TestDecodeRowRefusesNilScopes(t *testing.T) {
	good := encodeRow(row{Key: Key{Scope: storagetest.TenantScope(t), Created: time.Now()}})
	for name, patch := range map[string]func([]byte){
		"system scope": func(v []byte) { clear(v[:storage.ScopeLen]) },
		"nil tenant":   func(v []byte) { clear(v[:16]) },
		"nil org":      func(v []byte) { clear(v[16:storage.ScopeLen]) },
	} {
		v := append([]byte(nil), good...)
		patch(v)
		if _, err := decodeRow(uuid.New(), v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decodeRow = %v, want ErrCorrupt", name, err)
		}
	}
	if _, err := decodeRow(uuid.New(), good); err != nil {
		t.Fatalf("decodeRow(good) = %v", err)
	}
}

func TestTokenPrintsNoSecret(t *testing.T) {
	tok, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	secret := tok.reveal()[len(tokenPrefix)+33:]
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		if s := fmt.Sprintf(verb, tok); strings.Contains(s, secret) || strings.Contains(s, fmt.Sprintf("%x", tok.secret[:4])) {
			t.Errorf("%s prints the secret: %s", verb, s)
		}
	}
}

// A call without an engine is storage.ErrNotOpen, as in every facade.
func TestNoEngine(t *testing.T) {
	s := storagetest.TenantScope(t)
	_, _, createErr := Create(nil, s, "ci", time.Time{})
	for name, err := range map[string]error{
		"create":       createErr,
		"list":         second(List(nil)),
		"revoke":       second(Revoke(nil, uuid.New())),
		"authenticate": second(Authenticate(nil, "token", time.Now())),
		"delete keys":  second(AddTenantDeletion(nil, &storage.Batch{}, s)),
	} {
		if !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s without an engine = %v, want storage.ErrNotOpen", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
