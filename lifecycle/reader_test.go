package lifecycle

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// seedExport is a small valid export with rows of every family.
func seedExport(t testing.TB) []byte {
	_, _, file := memoryTenant(t, "seed", 1)
	return file
}

// FuzzReadExport checks that the export reader never panics, refuses bad
// input only with its typed errors, and that a file it accepts is
// canonical: written again from the rows read, it is the same bytes.
// Seeds: a small export, an empty one, and testdata/fuzz/FuzzReadExport.
func FuzzReadExport(f *testing.F) {
	f.Add(seedExport(f))
	empty := storage.NewMemoryEngine()
	f.Add(export(f, empty, scopeN(f, 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := newExportReader(bytes.NewReader(b))
		var rows []forgedRow
		for err == nil {
			var r forgedRow
			r.cf, r.key, r.value, err = x.next()
			if err == nil {
				rows = append(rows, r)
			}
		}
		if err != io.EOF {
			if !errors.Is(err, ErrCorruptFile) && !errors.Is(err, ErrNotExport) && !errors.Is(err, ErrVersion) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if again := forge(t, x.header, rows...); !bytes.Equal(again, b) {
			t.Fatalf("accepted file is not canonical:\n% x\nwritten again:\n% x", b, again)
		}
		for _, r := range rows {
			if _, _, err := storage.RescopeRow(x.header.Scope, scopeN(t, 9), r.cf, r.key, r.value); err != nil &&
				r.cf != storage.ValidTimeIndex && r.cf != storage.TxTimeIndex {
				t.Fatalf("accepted row %s %x does not rescope: %v", r.cf, r.key, err)
			}
		}
	})
}

func TestReadExportHeader(t *testing.T) {
	x, err := newExportReader(bytes.NewReader(seedExport(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Version: 1, Scope: scopeN(t, 1), Name: "seed", Families: storage.Families()}
	if x.header.Version != want.Version || x.header.Scope != want.Scope || x.header.Name != want.Name || len(x.header.Families) != 13 {
		t.Fatalf("header %+v, want %+v", x.header, want)
	}
	if x.header.Scope.Tenant() != (uuid.UUID{0x10, 1, 1}) {
		t.Fatalf("scope %s", x.header.Scope)
	}
}
