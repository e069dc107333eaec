package tenants

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

func sampleRecords(t testing.TB) []Tenant {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return []Tenant{
		{Scope: scopeN(t, 1), Name: "acme", State: Active, Provisioned: at, Changed: at},
		{Scope: scopeN(t, 2), Name: "b.2_x-" + string(bytes.Repeat([]byte("n"), MaxNameLen-6)), State: Erasing, Provisioned: at, Changed: at.Add(time.Hour)},
		{Scope: scopeN(t, 3), State: Erased, Provisioned: time.Unix(0, 0).UTC(), Changed: at},
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, want := range sampleRecords(t) {
		got, err := decodeRecord(encodeRecord(want))
		if err != nil {
			t.Fatalf("decode %+v: %v", want, err)
		}
		if got.Scope != want.Scope || got.Name != want.Name || got.State != want.State ||
			!got.Provisioned.Equal(want.Provisioned) || !got.Changed.Equal(want.Changed) {
			t.Fatalf("round trip = %+v, want %+v", got, want)
		}
	}
}

func TestTenantRecordIDIsTheKeysID(t *testing.T) {
	s := scopeN(t, 1)
	k := storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(s))
	p, err := storage.DecodeTrace(k.Bytes())
	if err != nil || !p.Scope.IsSystem() || p.Query != storage.TenantRecordID(s) || p.Query == uuid.Nil {
		t.Fatalf("record key %s decodes to %+v, %v", k, p, err)
	}
	if storage.TenantRecordID(scopeN(t, 2)) == p.Query {
		t.Fatal("two scopes derive one record id")
	}
}

// FuzzDecodeRecord checks that the value decoder never panics, fails only
// with ErrCorrupt, and that whatever it accepts encodes back to the same
// bytes. Seeds: the sample records and testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range sampleRecords(f) {
		f.Add(encodeRecord(r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if got := encodeRecord(r); !bytes.Equal(got, b) {
			t.Fatalf("re-encode = % x, want % x", got, b)
		}
	})
}
