package ledger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// redactionEntry is a redaction of two ranges of blob in scope.
func redactionEntry(t testing.TB, scope storage.TenantScope, blob uuid.UUID) Entry {
	t.Helper()
	en, err := NewEntry(KindRedaction, scope, blob)
	if err != nil {
		t.Fatal(err)
	}
	en.Redaction.Ranges = []storage.BlobRange{{Start: 3, End: 9}, {Start: 12, End: 40}}
	en.Redaction.KeyedDigest = [32]byte{0xd1, 0x9e, 31: 0x57}
	return en
}

// TestRedactionEntry commits a redaction and a deletion entry, reads them
// back from the store and from a ledger file, and checks that Replay
// refuses them and writes nothing.
func TestRedactionEntry(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scope := storagetest.TenantScope(t)
		e := env.Engine
		redact := redactionEntry(t, scope, storagetest.ID(1))
		deleted := redactionEntry(t, scope, storagetest.ID(2))
		deleted.Redaction.Ranges, deleted.Redaction.Deleted, deleted.Redaction.EraseFacts = nil, true, true
		for _, en := range []*Entry{&redact, &deleted} {
			var work storage.Batch
			work.Put(storage.SourceChunkKey(scope, en.Entity, 0), []byte("rewritten"))
			if err := Commit(e, &work, en); err != nil {
				t.Fatal(err)
			}
			got, err := Get(e, en.ID)
			if err != nil {
				t.Fatal(err)
			}
			checkEqual(t, got, *en)
			if got.Redaction == nil || got.Entity != en.Entity || got.Redaction.Deleted != en.Redaction.Deleted {
				t.Errorf("read back %+v, want %+v", got, en)
			}
		}
		var file bytes.Buffer
		if n, err := WriteFile(&file, e); err != nil || n != 2 {
			t.Fatalf("WriteFile = %d, %v", n, err)
		}
		read, err := ReadFile(bytes.NewReader(file.Bytes()))
		if err != nil || len(read) != 2 {
			t.Fatalf("ReadFile = %v, %v", read, err)
		}
		checkEqual(t, read[0], redact)
		checkEqual(t, read[1], deleted)

		fresh := storage.NewMemoryEngine()
		if err := Replay(fresh, read[0]); !errors.Is(err, ErrNotDeletion) {
			t.Errorf("Replay of a redaction = %v, want ErrNotDeletion", err)
		}
		if _, err := Get(fresh, redact.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("a refused replay recorded the entry: %v", err)
		}
	})
}

// forgedRedactions are redaction entries (and entries of other kinds with
// a redaction section) that no code path may accept: each is refused by
// Commit, by the value decoder and by a ledger file that carries it.
func forgedRedactions(t *testing.T) map[string]Entry {
	scopes := storagetest.TenantScopes(t, 2)
	a, b := scopes[0], scopes[1]
	blob := storagetest.ID(9)
	out := map[string]Entry{}
	forge := func(name string, change func(en *Entry)) {
		en := redactionEntry(t, a, blob)
		change(&en)
		out[name] = en
	}
	forge("another tenant's range as a deletion", func(en *Entry) {
		en.Add(storage.TenantAll(b, storage.Sources), 1, 1)
	})
	forge("its own blob's rows as a deletion", func(en *Entry) {
		en.Add(storage.SourceRows(a, blob), 1, 1)
	})
	forge("no redaction section", func(en *Entry) { en.Redaction = nil })
	forge("no blob", func(en *Entry) { en.Entity = uuid.Nil })
	forge("a tenant erasure with a redaction section", func(en *Entry) { en.Kind, en.Entity = KindTenant, uuid.Nil })
	forge("an entity erasure with a redaction section", func(en *Entry) { en.Kind = KindEntity })
	forge("no range and not deleted", func(en *Entry) { en.Redaction.Ranges = nil })
	forge("an empty range", func(en *Entry) { en.Redaction.Ranges = []storage.BlobRange{{Start: 5, End: 5}} })
	forge("a reversed range", func(en *Entry) { en.Redaction.Ranges = []storage.BlobRange{{Start: 9, End: 3}} })
	forge("overlapping ranges", func(en *Entry) { en.Redaction.Ranges = []storage.BlobRange{{Start: 0, End: 10}, {Start: 5, End: 20}} })
	forge("touching ranges", func(en *Entry) { en.Redaction.Ranges = []storage.BlobRange{{Start: 0, End: 10}, {Start: 10, End: 20}} })
	forge("unsorted ranges", func(en *Entry) { en.Redaction.Ranges = []storage.BlobRange{{Start: 30, End: 40}, {Start: 0, End: 10}} })
	forge("no keyed digest", func(en *Entry) { en.Redaction.KeyedDigest = [32]byte{} })
	return out
}

func TestForgedRedactionsRefused(t *testing.T) {
	good, err := encode(new(redactionEntry(t, storagetest.TenantScope(t), storagetest.ID(9))))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(bytes.NewReader(fileOf(good))); err != nil || len(got) != 1 {
		t.Fatalf("a forged file of a good entry: %v, %v", got, err)
	}
	for name, en := range forgedRedactions(t) {
		e := storage.NewMemoryEngine()
		var work storage.Batch
		if err := Commit(e, &work, &en); !errors.Is(err, ErrBadEntry) {
			t.Errorf("Commit of %s = %v, want ErrBadEntry", name, err)
		}
		if _, err := en.Ranges(); !errors.Is(err, ErrBadEntry) {
			t.Errorf("Ranges of %s = %v, want ErrBadEntry", name, err)
		}
		v, err := encode(&en)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decode(v); !errors.Is(err, ErrBadEntry) {
			t.Errorf("decode of %s = %v, want ErrBadEntry", name, err)
		}
		if _, err := ReadFile(bytes.NewReader(fileOf(v))); !errors.Is(err, ErrBadEntry) {
			t.Errorf("a ledger file holding %s: %v, want ErrBadEntry", name, err)
		}
	}
}

// TestRedactionValueDamage changes the version, the redaction flags and
// the range count of a good redaction value, with a checksum that matches:
// each is ErrBadEntry.
func TestRedactionValueDamage(t *testing.T) {
	en := redactionEntry(t, storagetest.TenantScope(t), storagetest.ID(4))
	good, err := encode(&en)
	if err != nil {
		t.Fatal(err)
	}
	section := len(good) - checksumLen - redactionLen - len(en.Redaction.Ranges)*rangeLen
	for name, change := range map[string]func(v []byte) []byte{
		"version 1":                 func(v []byte) []byte { v[0] = valueVersion; return v },
		"version 3":                 func(v []byte) []byte { v[0] = namedVersion; return v },
		"version 4":                 func(v []byte) []byte { v[0] = namedVersion + 1; return v },
		"an unknown redaction flag": func(v []byte) []byte { v[section] |= 0x80; return v },
		"one range more":            func(v []byte) []byte { v[section+33+1]++; return v },
		"one range less":            func(v []byte) []byte { v[section+33+1]--; return v },
		"the last range cut":        func(v []byte) []byte { return v[:len(v)-8] },
		"a byte more":               func(v []byte) []byte { return append(v, 0) },
	} {
		body := change(bytes.Clone(good[:len(good)-checksumLen]))
		v := binary.BigEndian.AppendUint32(body, crc32.Checksum(body, castagnoli))
		if _, err := decode(v); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: decode = %v, want ErrBadEntry", name, err)
		}
	}
}

// fileOf returns a ledger file holding values, whatever they are: what a
// forger would write.
func fileOf(values ...[]byte) []byte {
	b := []byte(fileMagic + string(rune(fileVersion)))
	for _, v := range values {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
	}
	b = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, endMark), uint64(len(values)))
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}
