package lifecycle

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// drawRow draws one row of scope s in a family drawn from all 13: a key
// built by the family's constructor from drawn fields, and a drawn value
// (a temporal index row's value is, as the temporal store writes it, its
// primary key).
func drawRow(t *rapid.T, s storage.TenantScope) (storage.Key, []byte) {
	id := func(label string) uuid.UUID { return uuid.UUID{rapid.Byte().Draw(t, label)} }
	ts := func(label string) storage.Timestamp { return storage.Timestamp(rapid.Int64().Draw(t, label)) }
	u64 := func(label string) uint64 { return rapid.Uint64().Draw(t, label) }
	value := rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(t, "value")
	switch cf := storage.ColumnFamily(rapid.IntRange(int(storage.NodeVersions), int(storage.LastFamily)).Draw(t, "family")); cf {
	case storage.NodeVersions:
		return storage.NodeVersionKey(s, id("id"), ts("valid"), ts("tx")), value
	case storage.EdgeVersions:
		return storage.EdgeVersionKey(s, id("id"), ts("valid"), ts("tx")), value
	case storage.AdjacencyOut:
		return storage.AdjacencyOutKey(s, id("from"), storage.EdgeTypeHash(u64("type")), ts("valid"), ts("tx"), id("to")), value
	case storage.AdjacencyIn:
		return storage.AdjacencyInKey(s, id("to"), storage.EdgeTypeHash(u64("type")), ts("valid"), ts("tx"), id("from")), value
	case storage.ValidTimeIndex, storage.TxTimeIndex:
		n, vt, tx := id("id"), ts("valid"), ts("tx")
		kind := storage.IndexKind(rapid.IntRange(0, 1).Draw(t, "kind"))
		primary := storage.NodeVersionKey(s, n, vt, tx)
		if kind == storage.IndexEdge {
			primary = storage.EdgeVersionKey(s, n, vt, tx)
		}
		if cf == storage.ValidTimeIndex {
			return storage.ValidTimeIndexKey(s, vt, tx, n, kind), primary.Bytes()
		}
		return storage.TxTimeIndexKey(s, tx, vt, n, kind), primary.Bytes()
	case storage.Vectors:
		return storage.VectorKey(s, id("node"), storage.ModelID(u64("model")), ts("valid"), ts("tx")), value
	case storage.Schema:
		return storage.SchemaKey(s, storage.LabelHash(u64("label")), ts("tx")), value
	case storage.Sources:
		return storage.RedactionRecordKey(s, id("blob")), value
	case storage.Spans:
		// The largest start marks the spans of a fact; SpanKey refuses it.
		start := rapid.Uint64Max(math.MaxUint64-1).Draw(t, "start")
		return storage.SpanKey(s, id("source"), start, u64("end")), value
	case storage.Traces:
		return storage.TraceKey(s, id("query")), value
	case storage.Jobs:
		return storage.JobKey(s, storage.JobQueued, rapid.Uint8().Draw(t, "priority"), ts("created"), id("job")), value
	default:
		return storage.BitmapPostingKey(s, storage.LabelHash(u64("label")), storage.PropertyHash(u64("property")), storage.BucketHash(u64("bucket"))), value
	}
}

// Whatever a tenant holds, its export imports under another scope as
// exactly its rows rescoped, and the export of the copy, imported back
// under the first scope of an empty store, gives the first export again.
func TestPropExportImport(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	rapid.Check(t, func(t *rapid.T) {
		src := storage.NewMemoryEngine()
		defer src.Close()
		provision(t, src, a, "src")
		provision(t, src, b, "copy")
		for range rapid.IntRange(0, 40).Draw(t, "rows") {
			k, v := drawRow(t, a)
			if err := src.Put(k, v); err != nil {
				t.Fatal(err)
			}
		}
		first := export(t, src, a)
		if _, err := Import(src, b, bytes.NewReader(first), Options{}); err != nil {
			t.Fatal(err)
		}
		assertRescoped(t, src, a, b)
		dst := storage.NewMemoryEngine()
		defer dst.Close()
		provision(t, dst, a, "back")
		if _, err := Import(dst, a, bytes.NewReader(export(t, src, b)), Options{}); err != nil {
			t.Fatal(err)
		}
		back := export(t, dst, a)
		// The files differ only in the name of their header.
		if !bytes.Equal(rowsPart(t, back), rowsPart(t, first)) {
			t.Fatal("the rows came back changed")
		}
	})
}

// rowsPart returns an export's bytes after its header, without the
// checksum.
func rowsPart(t tb, file []byte) []byte {
	x, err := newExportReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	return file[x.n : len(file)-checksumLen]
}
