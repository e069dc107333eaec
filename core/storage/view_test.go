package storage_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// scanOnly hides every method of a Reader but Get and Scan, as an engine
// without a lent scan has.
type scanOnly struct{ storage.Reader }

// TestScanViewFallsBack scans a reader without ViewScanner through
// storage.ScanView: it yields Scan's rows, which the caller may keep. A nil
// reader yields ErrNotOpen, as does a nil memory engine.
func TestScanViewFallsBack(t *testing.T) {
	e := storage.NewMemoryEngine()
	s := storagetest.TenantScope(t)
	id := uuid.New()
	for v := range 3 {
		if err := e.Put(storage.NodeVersionKey(s, id, storage.Timestamp(v), 0), []byte{byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	r := storage.NodeHistory(s, id)
	var kept []storage.KV
	for kv, err := range storage.ScanView(scanOnly{e}, r) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, kv) // owned rows: Scan's
	}
	if len(kept) != 3 {
		t.Fatalf("%d rows, want 3", len(kept))
	}
	for i, kv := range kept {
		if want := []byte{byte(2 - i)}; !bytes.Equal(kv.Value, want) { // newest first
			t.Errorf("row %d holds %x, want %x", i, kv.Value, want)
		}
	}
	for name, rd := range map[string]storage.Reader{"nil reader": nil, "nil memory engine": (*storage.MemoryEngine)(nil)} {
		for _, err := range storage.ScanView(rd, r) {
			if !errors.Is(err, storage.ErrNotOpen) {
				t.Errorf("ScanView of a %s yielded %v, want ErrNotOpen", name, err)
			}
		}
	}
}

// A loop over ScanView decodes each row in its body, and copies what it
// keeps: the next iteration may overwrite the row it was lent.
func ExampleScanView() {
	e := storage.NewMemoryEngine()
	s, _ := storage.NewTenantScope(uuid.MustParse("00000000-0000-0000-0000-000000000001"), uuid.MustParse("00000000-0000-0000-0000-000000000002"))
	id := uuid.MustParse("00000000-0000-0000-0000-000000000003")
	for v, value := range []string{"first", "second", "third"} {
		_ = e.Put(storage.NodeVersionKey(s, id, storage.Timestamp(v), 0), []byte(value))
	}
	var total int
	var newest []byte
	for kv, err := range storage.ScanView(e, storage.NodeHistory(s, id)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		total += len(kv.Value) // used in the body: no copy needed
		if newest == nil {
			newest = bytes.Clone(kv.Value) // kept past the body: copied
		}
	}
	fmt.Println(total, string(newest))
	// Output: 16 third
}
