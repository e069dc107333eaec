package sources_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/sources"
)

// fixedNow is the clock of the tests' stores.
func fixedNow() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }

func openStore(e storage.Engine) *sources.Store {
	return sources.Open(e, sources.Options{Now: fixedNow})
}

// text returns n bytes of canonical text, multi-byte characters included,
// some of them split across chunk boundaries, the same for the same seed.
func text(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"telha ", "é ", "провенанс ", "事実 ", "🦫 ", "a\n"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
	}
	out := b.Bytes()[:n]
	// Cut at n may end inside a character: overwrite its bytes with ASCII.
	for i := len(out) - 1; i >= 0 && !isCanonical(out); i-- {
		out[i] = 'x'
	}
	return out
}

func isCanonical(b []byte) bool { return sources.CheckCanonical(b) == nil }

func mustIngest(t testing.TB, s *sources.Store, scope storage.TenantScope, doc []byte) sources.Blob {
	t.Helper()
	b, _, err := s.IngestBytes(scope, doc)
	if err != nil {
		t.Fatalf("ingest %d bytes: %v", len(doc), err)
	}
	return b
}

func mustRead(t testing.TB, s *sources.Store, scope storage.TenantScope, id uuid.UUID) []byte {
	t.Helper()
	r, err := s.Open(scope, id)
	if err != nil {
		t.Fatalf("open blob %s: %v", id, err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read blob %s: %v", id, err)
	}
	return got
}

func node(n int) sources.Fact {
	return sources.Fact{Kind: storage.IndexNode, ID: uuid.UUID{0x0e, 15: byte(n)}, ValidStart: 100, TxStart: storage.Timestamp(1000 + n)}
}

func edge(n int) sources.Fact {
	return sources.Fact{Kind: storage.IndexEdge, ID: uuid.UUID{0xed, 15: byte(n)}, ValidStart: 100, TxStart: storage.Timestamp(2000 + n)}
}

// changingReader is a document whose bytes differ on the second pass.
type changingReader struct {
	*strings.Reader
	passes int
	second string
}

func (c *changingReader) Seek(off int64, whence int) (int64, error) {
	if c.passes++; c.passes == 2 { // Ingest seeks once to learn the start, then back to it
		c.Reader = strings.NewReader(c.second)
	}
	return c.Reader.Seek(off, whence)
}
