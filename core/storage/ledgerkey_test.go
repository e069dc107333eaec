package storage_test

import (
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

func TestWithin(t *testing.T) {
	a := mustScope(t, "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001")
	b := mustScope(t, "7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff")
	ff := mustScope(t, "ffffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff")
	id := uuid.UUID{15: 1}
	nodes := storage.TenantAll(a, storage.NodeVersions)
	stored := func(r storage.ScanRange) storage.ScanRange {
		lower, upper := r.Bounds()
		out, err := storage.FromStoredBounds(r.Family(), lower, upper)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name         string
		inner, outer storage.ScanRange
		want         bool
	}{
		{"a range in its tenant", storage.NodeHistory(a, id), nodes, true},
		{"the tenant itself", nodes, nodes, true},
		{"stored bounds of the tenant", stored(nodes), nodes, true},
		{"another tenant", storage.TenantAll(b, storage.NodeVersions), nodes, false},
		{"another family", storage.TenantAll(a, storage.EdgeVersions), nodes, false},
		{"a tenant around its range", nodes, storage.NodeHistory(a, id), false},
		{"the all-0xFF tenant, to the end of the family", storage.NodeHistory(ff, id), storage.TenantAll(ff, storage.NodeVersions), true},
		{"a tenant in the all-0xFF one", nodes, storage.TenantAll(ff, storage.NodeVersions), false},
		{"an invalid range", storage.ScanRange{}, nodes, false},
		{"in an invalid range", nodes, storage.ScanRange{}, false},
	}
	for _, tt := range tests {
		if got := tt.inner.Within(tt.outer); got != tt.want {
			t.Errorf("%s: Within = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestLedgerEntryKeyRefusesTheReservedSlot(t *testing.T) {
	if k := (storage.SystemScope{}).LedgerEntryKey(uuid.New(), storage.MaxTimestamp); k.Valid() {
		t.Errorf("LedgerEntryKey at MaxTimestamp is valid: %s", k)
	}
	if k := (storage.SystemScope{}).LedgerEntryKey(uuid.New(), 0); !k.Valid() {
		t.Error("LedgerEntryKey at 0 is invalid")
	}
}
