package sources_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

func TestChunkRoundTrip(t *testing.T) {
	sizes := []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"one byte", 1},
		{"exact chunk", sources.ChunkSize},
		{"chunk and one byte", sources.ChunkSize + 1},
		{"exact three chunks", 3 * sources.ChunkSize},
		{"multi-megabyte", 5<<20 + 12345},
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		for i, size := range sizes {
			doc := text(size.n, uint64(i))
			b, created, err := s.IngestBytes(scope, doc)
			if err != nil || !created {
				t.Fatalf("%s: ingest: created %v, %v", size.name, created, err)
			}
			sum := blake3.Sum256(doc)
			if b.ID != uuid.UUID(sum[:16]) || b.Hash != sum || b.Len != int64(size.n) || b.Ingested != storage.TimestampOf(fixedNow()) {
				t.Fatalf("%s: blob %+v, want id %x and length %d", size.name, b, sum[:16], size.n)
			}
			if want := max(1, (size.n+sources.ChunkSize-1)/sources.ChunkSize); b.Chunks() != uint64(want) {
				t.Fatalf("%s: %d chunks, want %d", size.name, b.Chunks(), want)
			}
			if got := mustRead(t, s, scope, b.ID); !bytes.Equal(got, doc) {
				t.Fatalf("%s: read back %d bytes, want %d, equal prefix %d", size.name, len(got), len(doc), commonPrefix(got, doc))
			}
			// Through Read with small buffers, as well as WriteTo.
			r, err := s.Open(scope, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if size.n < 1<<20 {
				if err := iotest.TestReader(r, doc); err != nil {
					t.Fatalf("%s: %v", size.name, err)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		}
		// Every blob survives a restart whole.
		s = openStore(env.Reopen(t))
		for i, size := range sizes {
			doc := text(size.n, uint64(i))
			if got := mustRead(t, s, scope, sources.BlobID(doc)); !bytes.Equal(got, doc) {
				t.Fatalf("%s after reopen: read back %d bytes, want %d", size.name, len(got), len(doc))
			}
		}
	})
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestIngestIsIdempotent(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scope := storagetest.TenantScope(t)
		doc := text(3*sources.ChunkSize+77, 1)
		first := mustIngest(t, openStore(env.Engine), scope, doc)
		rows := rowsOf(t, env.Engine, scope)

		later := sources.Open(env.Engine, sources.Options{}) // another clock: nothing may change
		again, created, err := later.IngestBytes(scope, doc)
		if err != nil || created || !reflect.DeepEqual(again, first) {
			t.Fatalf("re-ingest: %+v, created %v, %v; want %+v, not created", again, created, err, first)
		}
		if after := rowsOf(t, env.Engine, scope); !equalRows(rows, after) {
			t.Fatalf("re-ingest rewrote rows: %d before, %d after", len(rows), len(after))
		}
	})
}

// rowsOf returns every row of the tenant in the sources family.
func rowsOf(t *testing.T, e storage.Engine, scope storage.TenantScope) []storage.KV {
	t.Helper()
	var out []storage.KV
	for kv, err := range e.Scan(storage.TenantAll(scope, storage.Sources)) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kv)
	}
	return out
}

func equalRows(a, b []storage.KV) bool {
	return slices.EqualFunc(a, b, func(x, y storage.KV) bool {
		return bytes.Equal(x.Key, y.Key) && bytes.Equal(x.Value, y.Value)
	})
}

func TestIngestRefusesBadInput(t *testing.T) {
	valid := text(2*sources.ChunkSize, 3)
	// A four-byte character split across the first chunk boundary is
	// canonical; the same bytes cut short are not.
	split := append(bytes.Repeat([]byte("a"), sources.ChunkSize-2), "🦫🦫"...)
	type badCase struct {
		name string
		src  io.ReadSeeker
		want error
		at   string
	}
	cases := func() []badCase {
		return []badCase{
			{"invalid byte", strings.NewReader("abc\xffdef"), sources.ErrNotCanonical, "byte 3"},
			{"surrogate", strings.NewReader("ab\xed\xa0\x80"), sources.ErrNotCanonical, "byte 2"},
			{"overlong", strings.NewReader("\xc0\xaf"), sources.ErrNotCanonical, "byte 0"},
			{"cut character at the end", strings.NewReader("ok \xf0\x9f\xa6"), sources.ErrNotCanonical, "byte 3"},
			{"cut character at a chunk boundary", bytes.NewReader(append(split[:sources.ChunkSize+1:sources.ChunkSize+1], 'z')), sources.ErrNotCanonical, "byte 65534"},
			{"invalid byte in the last chunk", bytes.NewReader(append(bytes.Clone(valid), 0x80)), sources.ErrNotCanonical, "byte 131072"},
			{"changed between passes", &changingReader{Reader: strings.NewReader("first text"), second: "other text"}, sources.ErrChanged, ""},
			{"longer on the second pass", &changingReader{Reader: strings.NewReader("first text"), second: "first text, and more"}, sources.ErrChanged, ""},
		}
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		if b := mustIngest(t, s, scope, split); !bytes.Equal(mustRead(t, s, scope, b.ID), split) {
			t.Fatal("a character split across chunks did not round-trip")
		}
		before := rowsOf(t, env.Engine, scope)
		for _, c := range cases() {
			_, _, err := s.Ingest(scope, c.src)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.at) {
				t.Errorf("%s: %v, want %v at %q", c.name, err, c.want, c.at)
			}
		}
		if after := rowsOf(t, env.Engine, scope); !equalRows(before, after) {
			t.Errorf("refused ingests left rows: %d before, %d after", len(before), len(after))
		}
		if _, err := s.Open(scope, sources.BlobID([]byte("first text"))); !errors.Is(err, sources.ErrNoBlob) {
			t.Errorf("a blob changed while ingested is readable: %v", err)
		}
	})
}

func TestReadRange(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(3*sources.ChunkSize+5, 9)
		b := mustIngest(t, s, scope, doc)
		for _, r := range [][2]int64{{0, 0}, {0, 1}, {10, 20}, {sources.ChunkSize - 3, sources.ChunkSize + 3},
			{5, 2*sources.ChunkSize + 9}, {0, int64(len(doc))}, {int64(len(doc)), int64(len(doc))}} {
			got, err := s.ReadRange(scope, b.ID, r[0], r[1])
			if err != nil || !bytes.Equal(got, doc[r[0]:r[1]]) {
				t.Errorf("ReadRange%v: %d bytes, %v", r, len(got), err)
			}
		}
		for _, r := range [][2]int64{{-1, 3}, {5, 4}, {0, int64(len(doc)) + 1}} {
			if _, err := s.ReadRange(scope, b.ID, r[0], r[1]); !errors.Is(err, sources.ErrBadSpan) {
				t.Errorf("ReadRange%v: %v, want ErrBadSpan", r, err)
			}
		}
	})
}

func TestMissingAndDamagedBlobs(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		if _, err := s.Open(scope, uuid.UUID{1}); !errors.Is(err, sources.ErrNoBlob) {
			t.Fatalf("open of an unknown blob: %v", err)
		}
		doc := text(2*sources.ChunkSize+10, 4)
		b := mustIngest(t, s, scope, doc)
		damage := []struct {
			name  string
			chunk uint64
			value []byte
		}{
			{"chunk 1 cut short", 1, []byte{1, 'x'}},
			{"chunk 2 of another format", 2, append([]byte{9}, doc[2*sources.ChunkSize:]...)},
			{"chunk 1 with other text", 1, append([]byte{1}, bytes.Repeat([]byte("z"), sources.ChunkSize)...)},
		}
		for _, d := range damage {
			k := storage.SourceChunkKey(scope, b.ID, d.chunk)
			good, err := env.Engine.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := env.Engine.Put(k, d.value); err != nil {
				t.Fatal(err)
			}
			r, err := s.Open(scope, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadAll(r); !errors.Is(err, sources.ErrCorrupt) || !errors.Is(err, storage.ErrCorrupt) {
				t.Errorf("%s: read %v, want ErrCorrupt", d.name, err)
			}
			r.Close()
			if err := env.Engine.Put(k, good); err != nil {
				t.Fatal(err)
			}
		}
		if err := env.Engine.Delete(storage.SourceChunkKey(scope, b.ID, 2)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReadRange(scope, b.ID, 0, int64(len(doc))); !errors.Is(err, sources.ErrCorrupt) {
			t.Errorf("read range over a missing chunk: %v", err)
		}
		if err := env.Engine.Put(storage.SourceChunkKey(scope, b.ID, 0), []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stat(scope, b.ID); !errors.Is(err, sources.ErrCorrupt) {
			t.Errorf("stat of a damaged header: %v", err)
		}
	})
}

// The reserved redaction slot is no chunk: its key is refused by every
// engine, so no ingest can write there.
func TestReservedSlotIsNoChunk(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scope := storagetest.TenantScope(t)
		k := storage.SourceChunkKey(scope, uuid.UUID{1}, storage.RedactionChunkIndex)
		if err := env.Engine.Put(k, []byte{1}); !errors.Is(err, storage.ErrInvalidKey) {
			t.Fatalf("put at the reserved slot: %v, want ErrInvalidKey", err)
		}
	})
}
