package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// The comparisons of a model test, which runs the same operations on an
// engine and on MemoryEngine, the model, and demands the same answers.

// sameError fails t unless got, the engine's error of op, and want, the
// model's, mean the same: both nil, or both wrapping the same storage
// sentinel. Errors compare by meaning, not by message.
func sameError(t *rapid.T, op string, got, want error) {
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

// sameGet fails t unless got and want answer Get(k) alike.
func sameGet(t *rapid.T, got, want storage.Reader, k storage.Key) {
	t.Helper()
	gv, gerr := got.Get(k)
	wv, werr := want.Get(k)
	sameError(t, "get "+k.String(), gerr, werr)
	if !bytes.Equal(gv, wv) {
		t.Fatalf("get %s: engine %q, model %q", k, gv, wv)
	}
}

// sameScan fails t unless a scan of r on got and on want yields the same
// rows and ends the same way, stopping after limit rows when limit is not
// 0.
func sameScan(t *rapid.T, got, want storage.Reader, r storage.ScanRange, limit int) {
	t.Helper()
	grows, gerr := ScanLimit(got, r, limit)
	wrows, werr := ScanLimit(want, r, limit)
	sameError(t, "scan "+r.String(), gerr, werr)
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

// drawConditions adds up to two conditions to b, for the model test, which
// runs one batch on an engine and on MemoryEngine: each names a key the
// batch writes or one that key draws, and requires it absent, or holding
// the value model holds now (so that conditions hold as often as not), or
// holding a drawn value.
func drawConditions(t *rapid.T, b *storage.Batch, model storage.Reader, key func(*rapid.T) storage.Key) {
	var written []storage.Key
	for _, mu := range b.All() {
		if mu.Kind != storage.MutationDeleteRange {
			written = append(written, mu.Key)
		}
	}
	for range rapid.IntRange(0, 2).Draw(t, "conditions") {
		var k storage.Key
		if len(written) > 0 && rapid.Bool().Draw(t, "condition on a written key") {
			k = rapid.SampledFrom(written).Draw(t, "condition key")
		} else {
			k = key(t)
		}
		switch rapid.IntRange(0, 2).Draw(t, "condition") {
		case 0:
			b.RequireAbsent(k)
		case 1:
			v, err := model.Get(k)
			if err != nil {
				b.RequireAbsent(k)
			} else {
				b.RequireValue(k, v)
			}
		default:
			b.RequireValue(k, rapid.SliceOfN(rapid.Byte(), 0, 4).Draw(t, "condition value"))
		}
	}
}
