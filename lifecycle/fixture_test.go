package lifecycle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// tb is what the fixtures need of a test; testing.TB and *rapid.T have it.
type tb interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// scopeN returns a distinct tenant scope per n.
func scopeN(t testing.TB, n byte) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.UUID{0x10, n, 1}, uuid.UUID{0x20, n, 2})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// provision registers scope under name, failing t on error.
func provision(t tb, e storage.Engine, scope storage.TenantScope, name string) {
	if err := tenants.Provision(e, scope, name); err != nil {
		t.Fatal(err)
	}
}

// fill writes n rows of every family into scope: the rows a tenant's
// subsystems write, with values that name their row, and temporal index
// values that are, as the temporal store writes them, the primary keys.
// valueLen pads each value.
func fill(t testing.TB, e storage.Engine, scope storage.TenantScope, n, valueLen int) {
	t.Helper()
	var b storage.Batch
	for i := range n {
		id := uuid.UUID{0xa0, byte(i >> 16), byte(i >> 8), byte(i)}
		other := uuid.UUID{0xb0, byte(i >> 16), byte(i >> 8), byte(i)}
		vt, tx := storage.Timestamp(1_000_000+i), storage.Timestamp(2_000_000+i)
		h := uint64(i)*0x9e3779b97f4a7c15 + 1
		value := func(what string) []byte {
			v := fmt.Appendf(nil, "%s %d of %s ", what, i, scope)
			return append(v, bytes.Repeat([]byte{byte(i)}, max(valueLen-len(v), 0))...)
		}
		node := storage.NodeVersionKey(scope, id, vt, tx)
		edge := storage.EdgeVersionKey(scope, other, vt, tx)
		rows := []struct {
			k storage.Key
			v []byte
		}{
			{node, value("node")},
			{edge, value("edge")},
			{storage.AdjacencyOutKey(scope, id, storage.EdgeTypeHash(h), vt, tx, other), value("out")},
			{storage.AdjacencyInKey(scope, other, storage.EdgeTypeHash(h), vt, tx, id), value("in")},
			{storage.ValidTimeIndexKey(scope, vt, tx, id, storage.IndexNode), node.Bytes()},
			{storage.TxTimeIndexKey(scope, tx, vt, other, storage.IndexEdge), edge.Bytes()},
			{storage.VectorKey(scope, id, storage.ModelID(h), vt, tx), value("vector")},
			{storage.SchemaKey(scope, storage.LabelHash(h), tx), value("schema")},
			{storage.SourceChunkKey(scope, id, uint64(i)), value("source")},
			{storage.RedactionRecordKey(scope, other), value("redaction")},
			{storage.SpanKey(scope, id, uint64(i), uint64(i)+10), value("span")},
			{storage.TraceKey(scope, id), value("trace")},
			{storage.JobKey(scope, storage.JobQueued, uint8(i), tx, id), value("job")},
			{storage.BitmapAllocKey(scope, storage.LabelHash(h)), binary.BigEndian.AppendUint32(nil, uint32(i))},
			{storage.BitmapPostingKey(scope, storage.LabelHash(h), storage.PropertyHash(h), storage.BucketHash(i)), value("posting")},
		}
		for _, r := range rows {
			b.Put(r.k, r.v)
		}
		if b.Len() >= 1000 || i == n-1 {
			if err := e.Write(&b); err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
	}
}

// rowsOf returns every row of scope, family by family.
func rowsOf(t tb, r storage.Reader, scope storage.TenantScope) map[storage.ColumnFamily][]storage.KV {
	out := map[storage.ColumnFamily][]storage.KV{}
	for _, cf := range storage.Families() {
		for kv, err := range r.Scan(storage.TenantAll(scope, cf)) {
			if err != nil {
				t.Fatal(err)
			}
			out[cf] = append(out[cf], kv)
		}
	}
	return out
}

// export exports scope of e into memory.
func export(t tb, e storage.Engine, scope storage.TenantScope) []byte {
	var buf bytes.Buffer
	if _, err := Export(e, scope, &buf, Options{}); err != nil {
		t.Fatalf("export %s: %v", scope, err)
	}
	return buf.Bytes()
}

// memoryTenant returns a memory engine, closed when t ends, holding tenant
// scopeN(1) provisioned as name with n entities, and the tenant's export.
func memoryTenant(t testing.TB, name string, n int) (storage.Engine, storage.TenantScope, []byte) {
	t.Helper()
	e := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = e.Close() })
	a := scopeN(t, 1)
	provision(t, e, a, name)
	fill(t, e, a, n, 0)
	return e, a, export(t, e, a)
}

// assertRescoped fails t unless the rows of scope to are exactly the rows
// of scope from, moved by storage.RescopeRow.
func assertRescoped(t tb, r storage.Reader, from, to storage.TenantScope) {
	want, got := rowsOf(t, r, from), rowsOf(t, r, to)
	for _, cf := range storage.Families() {
		if len(got[cf]) != len(want[cf]) {
			t.Fatalf("%s: %d rows imported, %d exported", cf, len(got[cf]), len(want[cf]))
		}
		for i, kv := range want[cf] {
			k, v, err := storage.RescopeRow(from, to, cf, kv.Key, kv.Value)
			if err != nil || !bytes.Equal(got[cf][i].Key, k.Bytes()) || !bytes.Equal(got[cf][i].Value, v) {
				t.Fatalf("%s row %d: %x=%x, want %s=%x (%v)", cf, i, got[cf][i].Key, got[cf][i].Value, k, v, err)
			}
		}
	}
}

// checkpoint writes a checkpoint of e to dir as `telha checkpoint` does:
// after Resume, which also gives the store its deployment id, so that the
// checkpoint names the deployment its later erasures come from.
func checkpoint(t *testing.T, e storage.Engine, dir string) {
	t.Helper()
	_, err := Resume(e, EraseOptions{})
	mustDo(t, err)
	mustDo(t, e.Checkpoint(dir))
}
