package ledger

import (
	"bytes"
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// seedValues are the values of a tenant, an entity and a redaction entry.
func seedValues(t testing.TB) [][]byte {
	s := storagetest.TenantScope(t)
	tenant := tenantEntry(t, s)
	entity, err := NewEntry(KindEntity, s, storagetest.ID(7))
	if err != nil {
		t.Fatal(err)
	}
	entity.Add(storage.NodeHistory(s, storagetest.ID(7)), 3, 300)
	var out [][]byte
	for _, en := range []Entry{tenant, entity, redactionEntry(t, s, storagetest.ID(8))} {
		v, err := encode(&en)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// FuzzDecodeValue checks that any bytes decode to an entry or ErrBadEntry,
// never a panic, and that what decodes encodes back to the same bytes.
func FuzzDecodeValue(f *testing.F) {
	for _, v := range seedValues(f) {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		en, err := decode(b)
		if err != nil {
			if !errors.Is(err, ErrBadEntry) {
				t.Fatalf("decode %x: untyped error %v", b, err)
			}
			return
		}
		again, err := encode(&en)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("decode %x then encode = %x, %v", b, again, err)
		}
	})
}

// FuzzReadFile checks that any bytes read as a ledger file or fail with
// ErrBadEntry, never a panic.
func FuzzReadFile(f *testing.F) {
	e := storage.NewMemoryEngine()
	s := storagetest.TenantScope(f)
	for _, en := range []Entry{tenantEntry(f, s), redactionEntry(f, s, storagetest.ID(8))} {
		var work storage.Batch
		if err := Commit(e, &work, &en); err != nil {
			f.Fatal(err)
		}
	}
	var file bytes.Buffer
	if _, err := WriteFile(&file, e); err != nil {
		f.Fatal(err)
	}
	f.Add(file.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := ReadFile(bytes.NewReader(b)); err != nil && !errors.Is(err, ErrBadEntry) {
			t.Fatalf("ReadFile %x: untyped error %v", b, err)
		}
	})
}
