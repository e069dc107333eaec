package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
)

// fillMarked writes rows rows into every family of scope (every key shape of
// the tenant), each value holding marker, and provisions the tenant under
// name.
func fillMarked(t testing.TB, e storage.Engine, scope storage.TenantScope, name, marker string, rows int) {
	t.Helper()
	if err := tenants.Provision(e, scope, name); err != nil {
		t.Fatal(err)
	}
	value := func(i int) []byte { return []byte(fmt.Sprintf("%s row %d of %s", marker, i, name)) }
	var b storage.Batch
	for i := range rows {
		id := uuid.UUID{0: 0x01, 14: byte(i >> 8), 15: byte(i)}
		other := uuid.UUID{0: 0x02, 15: byte(i)}
		ts := storage.Timestamp(1000 + i)
		label := storage.LabelHash(uint64(i%3 + 1))
		for _, k := range []storage.Key{
			storage.NodeVersionKey(scope, id, ts, ts),
			storage.EdgeVersionKey(scope, other, ts, ts),
			storage.AdjacencyOutKey(scope, id, 7, ts, ts, other),
			storage.AdjacencyInKey(scope, other, 7, ts, ts, id),
			storage.ValidTimeIndexKey(scope, ts, ts, id, storage.IndexNode),
			storage.TxTimeIndexKey(scope, ts, ts, id, storage.IndexNode),
			storage.VectorKey(scope, id, 9, ts, ts),
			storage.SchemaKey(scope, label, ts),
			storage.SourceChunkKey(scope, id, uint64(i)),
			storage.RedactionRecordKey(scope, id),
			storage.SpanKey(scope, id, uint64(i), uint64(i+1)),
			storage.TraceKey(scope, id),
			storage.JobKey(scope, storage.JobQueued, 1, ts, id),
			storage.BitmapAllocKey(scope, label),
			storage.BitmapIDMapKey(scope, label, uint32(i)),
			storage.BitmapRevMapKey(scope, label, id),
			storage.BitmapPostingKey(scope, label, 5, storage.BucketHash(i)),
			storage.BitmapPropCounterKey(scope, label, 5),
		} {
			b.Put(k, value(i))
		}
		if b.Len() > 1000 {
			mustDo(t, e.Write(&b))
			b.Reset()
		}
	}
	mustDo(t, e.Write(&b))
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dump is every row of a tenant, family by family, as one byte string.
func dump(t testing.TB, r storage.Reader, scope storage.TenantScope) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, rg := range storage.TenantRanges(scope) {
		for kv, err := range r.Scan(rg) {
			mustDo(t, err)
			fmt.Fprintf(&out, "%s %x %x\n", rg.Family(), kv.Key, kv.Value)
		}
	}
	return out.Bytes()
}

// checkErased checks that scope has no row left, that the registry says
// erased, and that the ledger holds exactly one verified tenant entry for
// it, with the rows it had.
func checkErased(t *testing.T, e storage.Engine, scope storage.TenantScope, wantRows uint64) {
	t.Helper()
	counts, err := Verify(e, scope)
	mustDo(t, err)
	for _, c := range counts {
		if c.Rows != 0 {
			t.Errorf("%s still holds %d rows of the erased tenant", c.Family, c.Rows)
		}
	}
	if tn, err := tenants.Get(e, scope); err != nil || tn.State != tenants.Erased {
		t.Errorf("registry: %+v, %v; want erased", tn, err)
	}
	var found int
	for en, err := range ledger.Entries(e) {
		mustDo(t, err)
		if en.Scope != scope || en.Kind != ledger.KindTenant {
			continue
		}
		found++
		if en.Verified.IsZero() {
			t.Errorf("ledger entry %s is not verified", en.ID)
		}
		if rows, _ := en.Rows(); rows != wantRows {
			t.Errorf("ledger entry records %d rows, want %d", rows, wantRows)
		}
		if len(en.Deletions) != len(storage.Families()) {
			t.Errorf("ledger entry records %d deletions, want one per family", len(en.Deletions))
		}
	}
	if found != 1 {
		t.Errorf("%d ledger entries for the tenant, want 1", found)
	}
}

const rowsPerTenant = 20

func TestEraseTenant(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scopes := storagetest.TenantScopes(t, 3)
		for i, s := range scopes {
			fillMarked(t, env.Engine, s, fmt.Sprintf("tenant-%d", i), "MARKER", rowsPerTenant)
		}
		before := [][]byte{dump(t, env.Engine, scopes[0]), dump(t, env.Engine, scopes[2])}
		exported := [][]byte{export(t, env.Engine, scopes[0]), export(t, env.Engine, scopes[2])}
		had := countRows(t, env.Engine, scopes[1])
		var lines []string
		er, err := EraseTenant(env.Engine, scopes[1], EraseOptions{Progress: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }})
		mustDo(t, err)
		if len(lines) == 0 {
			t.Error("no progress line")
		}
		if er.Entry.Verified.IsZero() {
			t.Error("the erasure's entry is not verified")
		}
		checkErased(t, env.Engine, scopes[1], had)
		for i, s := range []storage.TenantScope{scopes[0], scopes[2]} {
			if !bytes.Equal(dump(t, env.Engine, s), before[i]) {
				t.Errorf("tenant %s changed by the erasure of another", s)
			}
			if !bytes.Equal(export(t, env.Engine, s), exported[i]) {
				t.Errorf("the export of tenant %s changed with the erasure of another", s)
			}
			if tn, err := tenants.Get(env.Engine, s); err != nil || tn.State != tenants.Active {
				t.Errorf("registry of another tenant: %+v, %v", tn, err)
			}
		}
		// Erasing again finds nothing and records a second, empty entry.
		er, err = EraseTenant(env.Engine, scopes[1], EraseOptions{})
		mustDo(t, err)
		if rows, _ := er.Entry.Rows(); rows != 0 {
			t.Errorf("a second erasure deleted %d rows", rows)
		}
		if _, err := EraseTenant(env.Engine, zeroScope, EraseOptions{}); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("erasure of the zero scope: %v", err)
		}
	})
}

// TestEraseTenantCrashAtEveryStep fails an erasure right after each of its
// steps, as a crash there would, reopens the store, and runs Resume: the
// erasure must complete, the other tenants must be byte-identical.
func TestEraseTenantCrashAtEveryStep(t *testing.T) {
	errCrash := errors.New("injected crash")
	for step := StepMarkErasing; step <= StepMarkErased; step++ {
		t.Run(step.String(), func(t *testing.T) {
			storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
				scopes := storagetest.TenantScopes(t, 2)
				fillMarked(t, env.Engine, scopes[0], "kept", "KEPT", rowsPerTenant)
				fillMarked(t, env.Engine, scopes[1], "erased", "ERASED", rowsPerTenant)
				before := dump(t, env.Engine, scopes[0])
				had := countRows(t, env.Engine, scopes[1])
				afterStep = func(s EraseStep) error {
					if s == step {
						return errCrash
					}
					return nil
				}
				_, err := EraseTenant(env.Engine, scopes[1], EraseOptions{})
				afterStep = nil
				if !errors.Is(err, errCrash) {
					t.Fatalf("erasure crashed after %s: %v", step, err)
				}
				e := env.Reopen(t)
				done, err := Resume(e, EraseOptions{})
				mustDo(t, err)
				if step < StepMarkVerified && len(done) != 1 {
					t.Errorf("Resume finished %d erasures, want 1", len(done))
				}
				checkErased(t, e, scopes[1], had)
				if !bytes.Equal(dump(t, e, scopes[0]), before) {
					t.Error("the other tenant changed")
				}
				if again, err := Resume(e, EraseOptions{}); err != nil || len(again) != 0 {
					t.Errorf("a second Resume: %d erasures, %v", len(again), err)
				}
			})
		})
	}
}

// countRows returns the number of rows of scope.
func countRows(t testing.TB, r storage.Reader, scope storage.TenantScope) uint64 {
	t.Helper()
	counts, err := Verify(r, scope)
	mustDo(t, err)
	var n uint64
	for _, c := range counts {
		n += c.Rows
	}
	if n == 0 {
		t.Fatal("the tenant has no row to erase")
	}
	return n
}

// grepDir returns the files under dir whose bytes hold marker; a file
// deleted while it walks (a live engine compacts) holds nothing.
func grepDir(t testing.TB, dir, marker string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted since it was listed (the engine's compaction): it holds nothing now
		}
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(marker)) {
			hits = append(hits, path)
		}
		return nil
	})
	mustDo(t, err)
	return hits
}
