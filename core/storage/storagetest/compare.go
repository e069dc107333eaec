package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"telha.dev/core/storage"
)

// The comparisons of a model test, which runs the same operations on an
// engine and on MemoryEngine, the model, and demands the same answers.

// Fataler is what the comparisons need of a test: *testing.T and
// *rapid.T are both one.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// SameError fails t unless got, the engine's error of op, and want, the
// model's, mean the same: both nil, or both wrapping the same storage
// sentinel. Errors compare by meaning, not by message.
func SameError(t Fataler, op string, got, want error) {
	t.Helper()
	if errorKind(got) != errorKind(want) {
		t.Fatalf("%s: engine %v, model %v", op, got, want)
	}
}

// errorKind maps an error to the storage sentinel it wraps.
func errorKind(err error) error {
	for _, s := range []error{storage.ErrNotFound, storage.ErrInvalidKey, storage.ErrInvalidRange, storage.ErrClosed, storage.ErrConflict} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// SameGet fails t unless got and want answer Get(k) alike.
func SameGet(t Fataler, got, want storage.Reader, k storage.Key) {
	t.Helper()
	gv, gerr := got.Get(k)
	wv, werr := want.Get(k)
	SameError(t, "get "+k.String(), gerr, werr)
	if !bytes.Equal(gv, wv) {
		t.Fatalf("get %s: engine %q, model %q", k, gv, wv)
	}
}

// SameScan fails t unless a scan of r on got and on want yields the same
// rows and ends the same way, stopping after limit rows when limit is not
// 0.
func SameScan(t Fataler, got, want storage.Reader, r storage.ScanRange, limit int) {
	t.Helper()
	grows, gerr := ScanLimit(got, r, limit)
	wrows, werr := ScanLimit(want, r, limit)
	SameError(t, "scan "+r.String(), gerr, werr)
	if len(grows) != len(wrows) {
		t.Fatalf("scan %s: engine %d rows, model %d\nengine %s\nmodel  %s", r, len(grows), len(wrows), rowsString(grows), rowsString(wrows))
	}
	for i := range grows {
		if !bytes.Equal(grows[i].Key, wrows[i].Key) || !bytes.Equal(grows[i].Value, wrows[i].Value) {
			t.Fatalf("scan %s: row %d: engine %x=%q, model %x=%q", r, i, grows[i].Key, grows[i].Value, wrows[i].Key, wrows[i].Value)
		}
	}
}

// ScanLimit collects the rows of a scan of rg until its end, its first
// error, or limit rows when limit is not 0.
func ScanLimit(r storage.Reader, rg storage.ScanRange, limit int) ([]storage.KV, error) {
	var out []storage.KV
	for kv, err := range r.Scan(rg) {
		if err != nil {
			return out, err
		}
		out = append(out, kv)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// rowsString lists rows one per line, for a failure message.
func rowsString(rows []storage.KV) string {
	var b strings.Builder
	for _, kv := range rows {
		fmt.Fprintf(&b, "\n  %x=%q", kv.Key, kv.Value)
	}
	return b.String()
}
