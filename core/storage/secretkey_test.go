package storage_test

import (
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// A deployment secret lives in the one family whose system prefix no other
// facade scans: no other layout of edge_versions holds system rows.
func TestDeploymentSecretHasItsFamilysSystemPrefix(t *testing.T) {
	k := storage.SystemScope{}.DeploymentSecretKey(uuid.New(), 1, 2)
	if !k.Valid() {
		t.Fatalf("DeploymentSecretKey is invalid: %s", k)
	}
	for _, l := range storage.Layouts() {
		if l.Family == k.Family() && l.Scope != storage.TenantRows && l.Shape != "deployment secret" {
			t.Errorf("layout %s %q holds system rows of %s too", l.Family, l.Shape, k.Family())
		}
	}
}
