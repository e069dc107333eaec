package lifecycle

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/credentials"
)

// TestEraseTenantDeletesCredentials: a tenant erasure deletes the
// tenant's API keys in its own batch, on RocksDB: no key of the tenant is
// listed or authenticates, the label (a marker) is in no file, and the
// other tenant's key still works.
func TestEraseTenantDeletesCredentials(t *testing.T) {
	const marker = "CREDENTIAL-ERASE-7c2e-marker"
	dir := filepath.Join(t.TempDir(), "store")
	e := storagetest.OpenRocksDB(t, dir)
	scopes := storagetest.TenantScopes(t, 2)
	fillMarked(t, e, scopes[0], "erased", "ROW", 4)
	fillMarked(t, e, scopes[1], "kept", "ROW", 4)
	_, erasedToken, err := credentials.Create(e, scopes[0], marker, time.Time{})
	mustDo(t, err)
	kept, keptToken, err := credentials.Create(e, scopes[1], "kept", time.Time{})
	mustDo(t, err)
	if len(grepDir(t, dir, marker)) == 0 {
		t.Fatal("the marker is in no file before the erasure")
	}
	_, err = EraseTenant(e, scopes[0], EraseOptions{})
	mustDo(t, err)
	if _, err := credentials.Authenticate(e, erasedToken, time.Now()); !errors.Is(err, credentials.ErrUnauthenticated) {
		t.Errorf("a key of the erased tenant authenticates: %v", err)
	}
	if k, err := credentials.Authenticate(e, keptToken, time.Now()); err != nil || k.ID != kept.ID {
		t.Errorf("the other tenant's key = %+v, %v", k, err)
	}
	keys, err := credentials.List(e)
	mustDo(t, err)
	if len(keys) != 1 || keys[0].ID != kept.ID {
		t.Errorf("keys after the erasure = %+v, want only the other tenant's", keys)
	}
	if hits := grepDir(t, dir, marker); len(hits) > 0 {
		t.Errorf("after the erasure, the marker is in %v", hits)
	}
}
