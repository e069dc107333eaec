package etcd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

func TestValidNamespace(t *testing.T) {
	for _, ns := range []string{"", "a", "prod/", "telha!~", strings.Repeat("x", 300)} {
		if err := validNamespace(ns); err != nil {
			t.Errorf("validNamespace(%q) = %v, want nil", ns, err)
		}
	}
	for _, ns := range []string{" ", "a b", "a\x00", "\x01", "\x0d", "tab\t", "del\x7f", "é", "\xff"} {
		if err := validNamespace(ns); err == nil {
			t.Errorf("validNamespace(%q) = nil, want an error", ns)
		}
	}
}

// drawNamespace draws a namespace from a small alphabet, so that one is
// often a prefix of another.
func drawNamespace(t *rapid.T, label string) []byte {
	return []byte(rapid.StringMatching(`[a-c/~!]{0,4}`).Draw(t, label))
}

// drawKey draws a key of any family, of the system scope or a tenant's,
// with scope bytes at the edges of the byte space.
func drawKey(t *rapid.T) storage.Key {
	ids := []uuid.UUID{{15: 1}, uuid.Max, {0: 0x7f, 15: 0xff}}
	id := rapid.SampledFrom(ids).Draw(t, "id")
	if rapid.Bool().Draw(t, "system") {
		return storage.SystemScope{}.JobKey(storage.JobQueued, 0xff, storage.MaxTimestamp, id)
	}
	s, err := storage.NewTenantScope(rapid.SampledFrom(ids).Draw(t, "tenant"), id)
	if err != nil {
		t.Fatal(err)
	}
	return rapid.SampledFrom([]storage.Key{
		storage.NodeVersionKey(s, id, 0, 0),
		storage.AdjacencyInKey(s, id, 1, 2, 3, id),
		storage.BitmapAllocKey(s, 7),
		storage.TraceKey(s, id),
	}).Draw(t, "key")
}

// TestNamespacesAreDisjoint checks what lets engines share a cluster: a
// key of one namespace lies in no family span and no metadata span of
// another, even when one namespace is a prefix of the other; and a key
// lies in its own family's span.
func TestNamespacesAreDisjoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := keyspace{ns: drawNamespace(t, "a")}, keyspace{ns: drawNamespace(t, "b")}
		k := drawKey(t)
		ka := a.key(&k)
		for _, cf := range storage.Families() {
			r := storage.SystemScope{}.FullFamily(cf)
			start, end := a.span(&r)
			if in := start <= ka && ka < end; in != (cf == k.Family()) {
				t.Fatalf("namespace %q: key of %s in the span of %s: %v", a.ns, k.Family(), cf, in)
			}
			if bytes.Equal(a.ns, b.ns) {
				continue
			}
			if start, end := b.span(&r); start <= ka && ka < end {
				t.Fatalf("key %x of namespace %q lies in the %s span of namespace %q", ka, a.ns, cf, b.ns)
			}
			if start, end := b.all(); start <= ka && ka < end {
				t.Fatalf("key %x of namespace %q lies in namespace %q", ka, a.ns, b.ns)
			}
			if m := a.meta(restoreMarker); m >= start && m < end && cf == storage.NodeVersions {
				t.Fatalf("metadata of namespace %q lies in namespace %q", a.ns, b.ns)
			}
		}
	})
}

// TestSpanBounds checks the etcd interval of a range with an upper bound
// and of one that runs to the end of its family, at the byte edges.
func TestSpanBounds(t *testing.T) {
	ks := keyspace{ns: []byte("ns/")}
	maxScope, err := storage.NewTenantScope(uuid.Max, uuid.Max)
	if err != nil {
		t.Fatal(err)
	}
	toEnd := storage.TenantAll(maxScope, storage.LastFamily)
	if _, upper := toEnd.Bounds(); upper != nil {
		t.Fatalf("TenantAll of the all-0xFF scope has an upper bound")
	}
	start, end := ks.span(&toEnd)
	if want := "ns/\x0d" + strings.Repeat("\xff", storage.ScopeLen); start != want {
		t.Errorf("start %x, want %x", start, want)
	}
	if want := "ns/\x0e"; end != want {
		t.Errorf("end %x, want %x", end, want)
	}
	last := storage.BitmapPostingKey(maxScope, ^storage.LabelHash(0), ^storage.PropertyHash(0), ^storage.BucketHash(0))
	if k := ks.key(&last); k < start || k >= end {
		t.Errorf("the last key of the family %x lies outside [%x, %x)", k, start, end)
	}
	if start, end := ks.all(); start != "ns/\x00" || end != "ns/\x0e" {
		t.Errorf("all() = [%x, %x)", start, end)
	}
}

// TestTelhaKey checks that a row the cluster returns outside the range, or
// of the wrong family or length, is refused rather than yielded.
func TestTelhaKey(t *testing.T) {
	ks := keyspace{ns: []byte("n/")}
	s, err := storage.NewTenantScope(uuid.UUID{15: 1}, uuid.UUID{15: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := storage.TenantAll(s, storage.Traces)
	start, end := ks.span(&r)
	k := storage.TraceKey(s, uuid.UUID{15: 3})
	good := []byte(ks.key(&k))
	if got, err := ks.telhaKey(storage.Traces, good, start, end); err != nil || !bytes.Equal(got, k.Bytes()) {
		t.Errorf("telhaKey of a good row = %x, %v", got, err)
	}
	other, _ := storage.NewTenantScope(uuid.UUID{15: 9}, uuid.UUID{15: 2})
	ok := storage.TraceKey(other, uuid.UUID{15: 3})
	for name, bad := range map[string][]byte{
		"another tenant": []byte(ks.key(&ok)),
		"too short":      good[:len(ks.ns)+1+storage.ScopeLen-1],
		"past the end":   []byte(end),
		"another family": append([]byte("n/\x0a"), good[3:]...),
	} {
		if _, err := ks.telhaKey(storage.Traces, bad, start, end); err == nil {
			t.Errorf("%s: telhaKey accepted %x", name, bad)
		}
	}
}
