package lifecycle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// forge writes an export of scope with the given rows (family, key,
// value), checksummed as the exporter does: a file whose every byte the
// attacker chose, with a valid checksum.
func forge(t testing.TB, h Header, rows ...forgedRow) []byte {
	t.Helper()
	var buf bytes.Buffer
	x, err := newExportWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		i := slicesIndex(h.Families, r.cf)
		if err := x.row(i, storage.KV{Key: r.key, Value: r.value}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.finish(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type forgedRow struct {
	cf         storage.ColumnFamily
	key, value []byte
}

func slicesIndex(fams []storage.ColumnFamily, cf storage.ColumnFamily) int {
	for i, f := range fams {
		if f == cf {
			return i
		}
	}
	return 0
}

// resum replaces the checksum of an edited export with the right one, so
// that the checks behind the checksum are what refuses it.
func resum(b []byte) []byte {
	x := newSum()
	x.Write(b[:len(b)-checksumLen])
	return append(b[:len(b)-checksumLen:len(b)-checksumLen], x.Sum(nil)...)
}

// Every hostile file is refused with a typed error, and the target tenant
// stays empty: nothing is written from a file that fails a check.
func TestImportRefusesHostileFiles(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	h := Header{Version: exportVersion, Scope: a, Families: exportFamilies()}
	nodeA := storage.NodeVersionKey(a, uuid.UUID{1}, 1, 2).Bytes()
	nodeA2 := storage.NodeVersionKey(a, uuid.UUID{2}, 1, 2).Bytes()
	nodeB := storage.NodeVersionKey(b, uuid.UUID{1}, 1, 2).Bytes()
	systemKey := append(make([]byte, storage.ScopeLen), nodeA[storage.ScopeLen:]...)
	halfNil := append(make([]byte, 16), nodeA[16:]...)
	indexA := storage.ValidTimeIndexKey(a, 1, 2, uuid.UUID{1}, storage.IndexNode).Bytes()

	valid := forge(t, h, forgedRow{storage.NodeVersions, nodeA, []byte("v")}, forgedRow{storage.Traces, storage.TraceKey(a, uuid.UUID{3}).Bytes(), nil})
	frameAt := len(appendHeader(nil, h)) // the first row's tag
	edit := func(at int, bs ...byte) []byte {
		out := bytes.Clone(valid)
		copy(out[at:], bs)
		return out
	}
	huge := func(keyLen, valueLen uint64) []byte {
		out := bytes.Clone(valid[:frameAt])
		out = append(out, tagRow, byte(storage.NodeVersions))
		out = binary.AppendUvarint(out, keyLen)
		return binary.AppendUvarint(out, valueLen)
	}
	wrongVersion := bytes.Clone(valid)
	binary.BigEndian.PutUint16(wrongVersion[8:], 2)

	tests := []struct {
		name string
		file []byte
		want error
	}{
		{"empty", nil, ErrNotExport},
		{"not an export", []byte("PK\x03\x04 a zip file, say"), ErrNotExport},
		{"version 2", resum(wrongVersion), ErrVersion},
		{"version 0", resum(edit(8, 0, 0)), ErrVersion},
		{"bad checksum", edit(len(valid)-1, valid[len(valid)-1]^1), ErrCorruptFile},
		{"trailing byte", append(bytes.Clone(valid), 0), ErrCorruptFile},
		{"header without the end", valid[:frameAt], ErrTruncated},
		{"no checksum", valid[:len(valid)-checksumLen], ErrTruncated},
		{"nil source scope", resum(edit(10, make([]byte, 32)...)), ErrCorruptFile},
		{"family list cut", resum(edit(frameAt-14, 12)), ErrCorruptFile},
		{"unknown tag", resum(edit(frameAt, 7)), ErrCorruptFile},
		{"unknown family", resum(edit(frameAt+1, 99)), ErrCorruptFile},
		{"row count off", resum(edit(len(valid)-checksumLen-1, 9)), ErrCorruptFile},
		{"row of another tenant", forge(t, h, forgedRow{storage.NodeVersions, nodeB, nil}), ErrForeignRow},
		{"row of the system scope", forge(t, h, forgedRow{storage.NodeVersions, systemKey, nil}), ErrCorruptFile},
		{"row of a half-nil scope", forge(t, h, forgedRow{storage.NodeVersions, halfNil, nil}), ErrCorruptFile},
		{"key of another family's length", forge(t, h, forgedRow{storage.Traces, nodeA, nil}), ErrCorruptFile},
		{"rows out of order", forge(t, h, forgedRow{storage.NodeVersions, nodeA2, nil}, forgedRow{storage.NodeVersions, nodeA, nil}), ErrCorruptFile},
		{"a row twice", forge(t, h, forgedRow{storage.NodeVersions, nodeA, nil}, forgedRow{storage.NodeVersions, nodeA, nil}), ErrCorruptFile},
		{"families out of order", forge(t, h, forgedRow{storage.Traces, storage.TraceKey(a, uuid.UUID{3}).Bytes(), nil}, forgedRow{storage.NodeVersions, nodeA, nil}), ErrCorruptFile},
		{"index value of another tenant", forge(t, h, forgedRow{storage.ValidTimeIndex, indexA, nodeB}), ErrCorruptFile},
		{"index value not a key", forge(t, h, forgedRow{storage.ValidTimeIndex, indexA, []byte("x")}), ErrCorruptFile},
		{"huge key length", huge(1<<60, 1), ErrCorruptFile},
		{"huge value length", huge(64, 1<<40), ErrCorruptFile},
		{"overlong varint", append(huge(64, 0)[:frameAt+2], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrCorruptFile},
		{"value longer than the file", append(huge(64, 1<<30), nodeA...), ErrTruncated},
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		provision(t, e, b, "target")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := Import(e, b, bytes.NewReader(tt.file), Options{})
				if !errors.Is(err, tt.want) {
					t.Fatalf("import = %v, want %v", err, tt.want)
				}
				assertEmpty(t, e, b)
			})
		}
	})
}

func assertEmpty(t *testing.T, r storage.Reader, scope storage.TenantScope) {
	t.Helper()
	for cf, rows := range rowsOf(t, r, scope) {
		if len(rows) > 0 {
			t.Fatalf("%d %s rows written into %s", len(rows), cf, scope)
		}
	}
}

// Every cut of an export, and a flipped bit in every byte of it, is
// refused with a typed error by the checking pass, which runs before
// anything is written.
func TestImportRefusesEveryCutAndFlip(t *testing.T) {
	_, a, file := memoryTenant(t, "acme", 1)
	check := func(what string, f []byte) {
		_, err := readExport(bytes.NewReader(f), a, Options{}.ticker("verify"), nil)
		if !errors.Is(err, ErrCorruptFile) && !errors.Is(err, ErrNotExport) && !errors.Is(err, ErrVersion) {
			t.Fatalf("import of %s = %v, want a typed refusal", what, err)
		}
	}
	for n := range len(file) {
		check(fmt.Sprintf("the first %d of %d bytes", n, len(file)), file[:n])
	}
	for i := range len(file) {
		f := bytes.Clone(file)
		f[i] ^= 1 << (i % 8)
		check(fmt.Sprintf("bit %d of byte %d flipped", i%8, i), f)
	}
}

// A frame that declares a gigabyte in a short file costs no gigabyte.
func TestHugeFrameAllocatesLittle(t *testing.T) {
	h := Header{Version: exportVersion, Scope: scopeN(t, 1), Families: exportFamilies()}
	file := appendHeader(nil, h)
	file = append(file, tagRow, byte(storage.NodeVersions))
	file = binary.AppendUvarint(file, 64)
	file = binary.AppendUvarint(file, 1<<30)
	file = append(file, make([]byte, 64+100)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readExport(bytes.NewReader(file), h.Scope, Options{}.ticker("verify"), nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("read = %v, want ErrTruncated", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Fatalf("reading a 1 GiB frame of a %d-byte file allocated %d bytes", len(file), n)
	}
}

// changingFile is a file that an attacker (or a second writer) swaps
// between the import's two passes.
type changingFile struct {
	second []byte
	r      *bytes.Reader
}

func (f *changingFile) Read(b []byte) (int, error) { return f.r.Read(b) }

// Seek swaps the file when the import rewinds it for its second pass.
func (f *changingFile) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		f.r = bytes.NewReader(f.second)
	}
	return f.r.Seek(off, whence)
}

// failingEngine fails every Write after the first few.
type failingEngine struct {
	storage.Engine
	writes int
}

var errInjected = errors.New("injected write failure")

func (e *failingEngine) Write(b *storage.Batch) error {
	if e.writes++; e.writes > 3 {
		return errInjected
	}
	return e.Engine.Write(b)
}

// A failure in the writing pass undoes what was written: the target is
// empty again, and the error says why.
func TestImportUndoesPartialWrite(t *testing.T) {
	a, b := scopeN(t, 1), scopeN(t, 2)
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		provision(t, e, a, "acme")
		provision(t, e, b, "target")
		fill(t, e, a, 100, 0)
		file := export(t, e, a)

		if _, err := Import(&failingEngine{Engine: e}, b, bytes.NewReader(file), Options{}); !errors.Is(err, errInjected) {
			t.Fatalf("import with failing writes = %v, want the injected failure", err)
		}
		assertEmpty(t, e, b)

		damaged := bytes.Clone(file)
		damaged[len(damaged)-100] ^= 1
		f := &changingFile{second: damaged, r: bytes.NewReader(file)}
		if _, err := Import(e, b, f, Options{}); !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("import of a file damaged between the passes = %v, want ErrCorruptFile", err)
		}
		assertEmpty(t, e, b)

		if _, err := Import(e, b, bytes.NewReader(file), Options{}); err != nil {
			t.Fatalf("import after the failures: %v", err)
		}
	})
}

// A reader that fails mid-file is an I/O error, not a panic, and nothing
// is written.
func TestImportReadError(t *testing.T) {
	e, _, file := memoryTenant(t, "acme", 5)
	b := scopeN(t, 2)
	provision(t, e, b, "target")
	r := io.MultiReader(bytes.NewReader(file[:100]), errReader{})
	if _, err := Import(e, b, readSeeker{r}, Options{}); !errors.Is(err, errRead) {
		t.Fatalf("import = %v, want the read error", err)
	}
	assertEmpty(t, e, b)
}

var errRead = errors.New("disk on fire")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errRead }

type readSeeker struct{ io.Reader }

func (readSeeker) Seek(int64, int) (int64, error) { return 0, nil }

// An export read from the middle of a stream (after other data) imports
// from where the stream stood, in both passes.
func TestImportFromOffset(t *testing.T) {
	e, _, file := memoryTenant(t, "acme", 3)
	b := scopeN(t, 2)
	provision(t, e, b, "target")
	f := bytes.NewReader(append([]byte("preamble"), file...))
	if _, err := f.Seek(int64(len("preamble")), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	st, err := Import(e, b, f, Options{})
	if err != nil || st.Total() != 45 {
		t.Fatalf("import from an offset = %+v, %v; want 45 rows", st, err)
	}
}
