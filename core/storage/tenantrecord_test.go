package storage

import (
	"testing"

	"github.com/google/uuid"
	"lukechampine.com/blake3"
	"pgregory.net/rapid"
)

// TenantRecordID is blake3 of the namespace and the scope's 32 bytes, cut
// to 16, and tells every two scopes apart; the zero scope has none.
func TestTenantRecordID(t *testing.T) {
	if id := TenantRecordID(TenantScope{}); id != uuid.Nil {
		t.Fatalf("record id of the zero scope = %s, want nil", id)
	}
	rapid.Check(t, func(t *rapid.T) {
		a, b := genScope.Draw(t, "a"), genScope.Draw(t, "b")
		ta, oa := a.Tenant(), a.Organization()
		sum := blake3.Sum256(append(append([]byte("telha/tenant/v1"), ta[:]...), oa[:]...))
		if got := TenantRecordID(a); got != uuid.UUID(sum[:16]) {
			t.Fatalf("record id of %s = %s, want %x", a, got, sum[:16])
		}
		if a != b && TenantRecordID(a) == TenantRecordID(b) {
			t.Fatalf("scopes %s and %s derive one record id", a, b)
		}
	})
}
