package blocklist

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"lukechampine.com/blake3"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func mustOpen(t testing.TB, e storage.Engine) *Keyer {
	t.Helper()
	k, err := Open(e)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return k
}

// versions returns the secret rows of e.
func versions(t testing.TB, e storage.Engine) []storage.KV {
	t.Helper()
	var out []storage.KV
	for kv, err := range e.Scan(storage.SystemScope{}.DeploymentSecretVersions(secretID)) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kv)
	}
	return out
}

// The first Open creates one secret, durably; later ones, and the first
// after a restart, read the same.
func TestFirstUseCreatesThenReads(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		if rows := versions(t, env.Engine); len(rows) != 0 {
			t.Fatalf("a new store holds %d secret rows", len(rows))
		}
		first := mustOpen(t, env.Engine)
		if first.secret == [SecretLen]byte{} {
			t.Fatal("an all-zero secret")
		}
		again := mustOpen(t, env.Engine)
		if again.secret != first.secret {
			t.Fatal("a second Open reads another secret")
		}
		if rows := versions(t, env.Engine); len(rows) != 1 {
			t.Fatalf("%d secret rows after two opens, want 1", len(rows))
		}
		reopened := mustOpen(t, env.Reopen(t))
		if reopened.secret != first.secret {
			t.Fatalf("%s: the secret changed across a restart", env.Kind)
		}
		if other := mustOpen(t, storage.NewMemoryEngine()); other.secret == first.secret {
			t.Fatal("two stores share a secret")
		}
	})
}

// Goroutines racing on the first use of one store get one secret.
func TestConcurrentFirstUse(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		const n = 8
		keyers := make([]*Keyer, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { keyers[i], errs[i] = Open(env.Engine) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if keyers[i].secret != keyers[0].secret {
				t.Fatalf("goroutine %d got another secret", i)
			}
		}
		if rows := versions(t, env.Engine); len(rows) != 1 {
			t.Fatalf("%d secret rows, want 1", len(rows))
		}
	})
}

// otherProcess is a store on which another process creates the secret
// between this process's read that finds none and its write: the race of
// two processes' first use on one etcd cluster, made certain.
type otherProcess struct {
	*storage.MemoryEngine
	secret [SecretLen]byte
	raced  bool
}

func (o *otherProcess) WriteDurable(b *storage.Batch) error {
	if !o.raced {
		o.raced = true
		var first storage.Batch
		key := storage.SystemScope{}.DeploymentSecretKey(secretID, firstVersion, firstVersion)
		first.RequireAbsent(key)
		first.Put(key, append([]byte{valueVersion}, o.secret[:]...))
		if err := o.MemoryEngine.WriteDurable(&first); err != nil {
			return err
		}
	}
	return o.MemoryEngine.WriteDurable(b)
}

// The loser of a race on the first use takes the winner's secret, and
// writes none of its own: no digest is ever taken under a secret that
// another process's readers do not use.
func TestFirstUseRaceLoserTakesTheWinners(t *testing.T) {
	e := &otherProcess{MemoryEngine: storage.NewMemoryEngine(), secret: [SecretLen]byte(bytes.Repeat([]byte{9}, SecretLen))}
	if k := mustOpen(t, e); k.secret != e.secret || !e.raced {
		t.Fatalf("the loser's secret %x, the winner's %x", k.secret[:4], e.secret[:4])
	}
	if rows := versions(t, e); len(rows) != 1 {
		t.Fatalf("%d secret rows after the race, want the winner's", len(rows))
	}
}

// When two versions exist (two processes raced on an empty etcd cluster,
// before the secret was created at one key), every reader takes the
// earliest, whatever the order they were written in.
func TestEarliestVersionWins(t *testing.T) {
	e := storage.NewMemoryEngine()
	put := func(at storage.Timestamp, fill byte) {
		t.Helper()
		if err := e.Put(storage.SystemScope{}.DeploymentSecretKey(secretID, at, at), append([]byte{valueVersion}, bytes.Repeat([]byte{fill}, SecretLen)...)); err != nil {
			t.Fatal(err)
		}
	}
	put(200, 2)
	put(100, 3)
	put(100, 1) // a tie goes to the smaller secret
	put(300, 0xff)
	if k := mustOpen(t, e); k.secret != [SecretLen]byte(bytes.Repeat([]byte{1}, SecretLen)) {
		t.Fatalf("secret %x, want the earliest", k.secret[:4])
	}
}

// A damaged secret row is ErrCorrupt, and Open writes no new secret over
// it: a new one would silently void every blocklist row.
func TestBadStoredValue(t *testing.T) {
	good := append([]byte{valueVersion}, bytes.Repeat([]byte{7}, SecretLen)...)
	for _, tt := range []struct {
		name  string
		value []byte
	}{
		{"empty", nil},
		{"short", good[:SecretLen]},
		{"long", append(bytes.Clone(good), 0)},
		{"version 2", append([]byte{2}, good[1:]...)},
		{"all-zero secret", append([]byte{valueVersion}, make([]byte, SecretLen)...)},
	} {
		e := storage.NewMemoryEngine()
		if err := e.Put(storage.SystemScope{}.DeploymentSecretKey(secretID, 5, 5), tt.value); err != nil {
			t.Fatal(err)
		}
		if k, err := Open(e); !errors.Is(err, ErrCorrupt) || !errors.Is(err, storage.ErrCorrupt) || k != nil {
			t.Errorf("%s: Open = %v, %v; want ErrCorrupt", tt.name, k, err)
		}
		if rows := versions(t, e); len(rows) != 1 {
			t.Errorf("%s: %d secret rows after a refused Open, want the damaged one alone", tt.name, len(rows))
		}
	}
	if _, err := Open(nil); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("Open(nil) = %v, want storage.ErrNotOpen", err)
	}
}

// The digest is keyed blake3 under the secret, the same in one piece and
// in many, and different from the unkeyed hash.
func TestDigest(t *testing.T) {
	k := mustOpen(t, storage.NewMemoryEngine())
	text := []byte("a passage the law took back")
	want := blake3.New(SecretLen, k.secret[:])
	_, _ = want.Write(text)
	d := k.Digest(text)
	if !bytes.Equal(d[:], want.Sum(nil)) {
		t.Fatalf("digest %x, want keyed blake3 %x", d, want.Sum(nil))
	}
	h := k.Hasher()
	for _, piece := range bytes.SplitAfter(text, []byte(" ")) {
		_, _ = h.Write(piece)
	}
	if h.Sum() != d {
		t.Fatal("the digest of the text in pieces differs")
	}
	if plain := blake3.Sum256(text); plain == d {
		t.Fatal("the keyed digest is the unkeyed hash")
	}
}

// No verb of fmt prints the secret, from a Keyer, its value or a Hasher.
func TestSecretNeverPrinted(t *testing.T) {
	k := mustOpen(t, storage.NewMemoryEngine())
	h := k.Hasher()
	secretHex := hex.EncodeToString(k.secret[:4])
	var decimal strings.Builder
	for _, b := range k.secret[:4] {
		fmt.Fprintf(&decimal, "%d ", b)
	}
	for _, v := range []any{k, *k, h, &h, []any{k}, struct{ K *Keyer }{k}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%d", "%q"} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(strings.ToLower(out), secretHex) || strings.Contains(out, strings.TrimSpace(decimal.String())) {
				t.Errorf("%s of %T prints the secret: %s", verb, v, out)
			}
		}
	}
}
