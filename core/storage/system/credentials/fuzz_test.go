package credentials

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
)

// FuzzParseToken: ParseToken never panics, refuses with ErrMalformed, and
// what it accepts prints back to the same string.
func FuzzParseToken(f *testing.F) {
	tok, err := newToken()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok.reveal())
	f.Add("")
	f.Add("telha_")
	f.Add("telha_00000000000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseToken(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseToken(%q) = %v, want ErrMalformed", s, err)
			}
			return
		}
		if got.reveal() != s {
			t.Fatalf("ParseToken(%q) prints back as %q", s, got.reveal())
		}
	})
}

// FuzzDecodeRow: decodeRow never panics, and what it accepts holds a real
// tenant scope and encodes back to the same bytes.
func FuzzDecodeRow(f *testing.F) {
	f.Add(encodeRow(row{Key: Key{Scope: storagetest.TenantScope(f), Name: "ci", Created: time.UnixMicro(5)}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := decodeRow(uuid.Nil, v)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeRow = %v, want ErrCorrupt", err)
			}
			return
		}
		if r.Scope.IsZero() {
			t.Fatal("decodeRow accepted a nil scope")
		}
		if got := encodeRow(r); string(got) != string(v) {
			t.Fatalf("decodeRow(%x) encodes back as %x", v, got)
		}
	})
}
