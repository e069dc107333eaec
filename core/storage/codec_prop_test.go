package storage

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/zeebo/xxh3"
	"lukechampine.com/blake3"
	"pgregory.net/rapid"
)

// Properties of keys: spec §5.3 invariants 1 to 3, plus the scope rules.

// Invariant 1: decode(encode(x)) == x for every layout, so encode is
// injective; the typed constructors rebuild the same key from the parts; a
// tenant key carries its scope's prefix, never the all-zero one.
func TestPropRoundTrip(t *testing.T) {
	for _, sh := range keyShapes {
		t.Run(sh.name, func(t *testing.T) {
			checkProp(t, func(t *rapid.T) {
				s := genScope.Draw(t, "scope")
				k, want := sh.draw(t, s)
				b := k.Bytes()
				if !k.Valid() || k.Family() != sh.family || k.Len() != len(b) {
					t.Fatalf("%s: valid=%v family=%s len=%d, want a valid %s key of %d bytes", sh.name, k.Valid(), k.Family(), k.Len(), sh.family, len(b))
				}
				got, err := Decode(sh.family, b)
				if err != nil || got != want {
					t.Fatalf("decode(%s) = %v, %v; want %v", k, got, err, want)
				}
				if re, _ := reencode(got); re != k {
					t.Fatalf("re-encoding %v gives %x, want %x", got, re.Bytes(), b)
				}
				if sh.system {
					if !bytes.Equal(b[:ScopeLen], make([]byte, ScopeLen)) {
						t.Fatalf("system key %x does not start with the all-zero prefix", b)
					}
					return
				}
				if !bytes.HasPrefix(b, refPrefix(s)) || bytes.Equal(b[:ScopeLen], make([]byte, ScopeLen)) {
					t.Fatalf("tenant key %x does not start with the scope %s", b, s)
				}
				if parsed, err := ParseKey(s, sh.family, b); err != nil || parsed != k {
					t.Fatalf("ParseKey(%s, %x) = %v, %v; want the key itself", s, b, parsed, err)
				}
			})
		})
	}
}

// Two keys of one family have equal bytes exactly when they decode to equal
// parts, across shapes: the bitmap kinds, the redaction slot and the system
// rows never collide with another shape.
func TestPropInjective(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		s := genScope.Draw(t, "scope")
		k1, p1 := genShape.Draw(t, "shape1").draw(t, s)
		k2, p2 := genShape.Draw(t, "shape2").draw(t, s)
		if k1.Family() != k2.Family() {
			if k1 == k2 {
				t.Fatalf("keys of %s and %s compare equal", k1.Family(), k2.Family())
			}
			return
		}
		if bytes.Equal(k1.Bytes(), k2.Bytes()) != (p1 == p2) {
			t.Fatalf("%v and %v: bytes equal %v, parts equal %v", p1, p2, bytes.Equal(k1.Bytes(), k2.Bytes()), p1 == p2)
		}
	})
}

// The zero TenantScope is not a scope: every tenant key setter gives an
// invalid Key for it, whatever the other inputs and whatever the Key held
// before, and an invalid Key has no bytes to give.
func TestPropZeroScopeKeys(t *testing.T) {
	shapes := rapid.SampledFrom(tenantShapes(0))
	checkProp(t, func(t *rapid.T) {
		sh := shapes.Draw(t, "shape")
		k, _ := sh.draw(t, TenantScope{})
		if k.Valid() || k.Len() != 0 || len(k.Bytes()) != 0 || len(k.View()) != 0 || k.String() != "invalid key" {
			t.Fatalf("%s from the zero scope = %q (%d bytes), want an invalid Key", sh.name, k, k.Len())
		}
	})
}

// timedShape builds keys whose bytes hold a first time (and maybe a second)
// after fixed leading components (lead) and before trailing ones (tail).
type timedShape struct {
	name string
	two  bool // the key holds a second time after the first
	key  func(s TenantScope, lead entity, first, second Timestamp, tail entity) Key
}

type entity struct {
	id   uuid.UUID
	hash uint64
	kind IndexKind
}

var genEntity = rapid.Custom(func(t *rapid.T) entity {
	return entity{id: genID.Draw(t, "id"), hash: genHash.Draw(t, "hash"), kind: genIndexKind.Draw(t, "kind")}
})

var timedShapes = []timedShape{
	{"node_versions", true, func(s TenantScope, l entity, v, x Timestamp, _ entity) Key { return NodeVersionKey(s, l.id, v, x) }},
	{"edge_versions", true, func(s TenantScope, l entity, v, x Timestamp, _ entity) Key { return EdgeVersionKey(s, l.id, v, x) }},
	{"adjacency_out", true, func(s TenantScope, l entity, v, x Timestamp, r entity) Key {
		return AdjacencyOutKey(s, l.id, EdgeTypeHash(l.hash), v, x, r.id)
	}},
	{"adjacency_in", true, func(s TenantScope, l entity, v, x Timestamp, r entity) Key {
		return AdjacencyInKey(s, l.id, EdgeTypeHash(l.hash), v, x, r.id)
	}},
	{"valid_time_index", true, func(s TenantScope, _ entity, v, x Timestamp, r entity) Key {
		return ValidTimeIndexKey(s, v, x, r.id, r.kind)
	}},
	// tx time leads: later tx first, then later valid first.
	{"tx_time_index", true, func(s TenantScope, _ entity, x, v Timestamp, r entity) Key {
		return TxTimeIndexKey(s, x, v, r.id, r.kind)
	}},
	{"vectors", true, func(s TenantScope, l entity, v, x Timestamp, _ entity) Key {
		return VectorKey(s, l.id, ModelID(l.hash), v, x)
	}},
	{"schema", false, func(s TenantScope, l entity, x, _ Timestamp, _ entity) Key { return SchemaKey(s, LabelHash(l.hash), x) }},
	{"vector model registry", false, func(_ TenantScope, l entity, x, _ Timestamp, _ entity) Key {
		return SystemScope{}.VectorModelKey(ModelID(l.hash), x)
	}},
	// The reserved redaction slot takes MaxTimestamp's place: it sorts first.
	{"sources", false, func(s TenantScope, l entity, x, _ Timestamp, _ entity) Key { return sourceRow(s, l.id, x) }},
}

// Invariants 2 and 3: for fixed leading components, a later first time sorts
// strictly earlier whatever follows it; on a tie, a later second time sorts
// strictly earlier whatever follows it.
func TestPropLatestFirst(t *testing.T) {
	for _, sh := range timedShapes {
		t.Run(sh.name, func(t *testing.T) {
			checkProp(t, func(t *rapid.T) {
				s, lead := genScope.Draw(t, "scope"), genEntity.Draw(t, "lead")
				f1 := genTime.Draw(t, "first1")
				f2 := drawNearTime(t, f1, "first2")
				s1 := genTime.Draw(t, "second1")
				s2 := drawNearTime(t, s1, "second2")
				k1 := sh.key(s, lead, f1, s1, genEntity.Draw(t, "tail1"))
				k2 := sh.key(s, lead, f2, s2, genEntity.Draw(t, "tail2"))
				c := bytes.Compare(k1.Bytes(), k2.Bytes())
				switch {
				case f1 > f2 && c >= 0:
					t.Fatalf("first time %s > %s but %x does not sort before %x", f1, f2, k1.Bytes(), k2.Bytes())
				case f1 == f2 && sh.two && s1 > s2 && c >= 0:
					t.Fatalf("tie on %s, second time %s > %s but %x does not sort before %x", f1, s1, s2, k1.Bytes(), k2.Bytes())
				}
			})
		})
	}
}

// Jobs are FIFO within (state, priority): byte order is the order of
// (state, priority, created at), ascending; system jobs sort before every
// tenant's jobs.
func TestPropJobsFIFO(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		s := genScope.Draw(t, "scope")
		j1, j2 := drawJob(t), drawJob(t)
		if rapid.Bool().Draw(t, "sameState") {
			j2.State = j1.State
		}
		if rapid.Bool().Draw(t, "samePriority") {
			j2.Priority = j1.Priority
		}
		j2.Created = drawNearTime(t, j1.Created, "created2")
		sys1, sys2 := rapid.Bool().Draw(t, "system1"), rapid.Bool().Draw(t, "system2")
		key := func(system bool, j JobParts) Key {
			if system {
				return SystemScope{}.JobKey(j.State, j.Priority, j.Created, j.ID)
			}
			return JobKey(s, j.State, j.Priority, j.Created, j.ID)
		}
		c := bytes.Compare(key(sys1, j1).Bytes(), key(sys2, j2).Bytes())
		switch {
		case sys1 && !sys2 && c >= 0:
			t.Fatalf("system job %v does not sort before tenant job %v", j1, j2)
		case sys1 == sys2 && jobBefore(j1, j2) && c >= 0:
			t.Fatalf("job %v should sort before %v", j1, j2)
		}
	})
}

func jobBefore(a, b JobParts) bool {
	if a.State != b.State {
		return a.State < b.State
	}
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	return a.Created < b.Created
}

// Spans of one source iterate in document order: by start, then by end.
func TestPropSpansDocumentOrder(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		s, id := genScope.Draw(t, "scope"), genID.Draw(t, "source")
		a1, e1 := genHash.Draw(t, "start1"), genHash.Draw(t, "end1")
		a2, e2 := drawNearHash(t, a1, "start2"), genHash.Draw(t, "end2")
		c := bytes.Compare(SpanKey(s, id, a1, e1).Bytes(), SpanKey(s, id, a2, e2).Bytes())
		if before := a1 < a2 || a1 == a2 && e1 < e2; before && c >= 0 {
			t.Fatalf("span [%d, %d) should sort before [%d, %d)", a1, e1, a2, e2)
		}
	})
}

// The timestamp encoding preserves order, negative times included, and the
// inversion reverses it; both are bijections.
func TestPropTimestampOrder(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		a := genTime.Draw(t, "a")
		b := drawNearTime(t, a, "b")
		if fromOrdered(ordered(a)) != a || invert(invert(ordered(a))) != ordered(a) {
			t.Fatalf("%d does not survive ordered/invert", a)
		}
		if inverted(a) != invert(ordered(a)) {
			t.Fatalf("inverted(%d) = %#x, want invert(ordered(%d)) = %#x", a, inverted(a), a, invert(ordered(a)))
		}
		if !bytes.Equal(be64(ordered(a)), refAsc(a)) || !bytes.Equal(be64(invert(ordered(a))), refInv(a)) {
			t.Fatalf("%d encodes as %x / %x, want %x / %x", a, be64(ordered(a)), be64(invert(ordered(a))), refAsc(a), refInv(a))
		}
		asc := bytes.Compare(be64(ordered(a)), be64(ordered(b)))
		inv := bytes.Compare(be64(invert(ordered(a))), be64(invert(ordered(b))))
		if want := cmpTime(a, b); asc != want || inv != -want {
			t.Fatalf("compare(%d, %d) = %d: ascending bytes give %d, inverted %d", a, b, want, asc, inv)
		}
		if TimestampOf(a.Time()) != a || a.String() == "" {
			t.Fatalf("%d does not survive time.Time", a)
		}
	})
}

func cmpTime(a, b Timestamp) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The name hashes are xxh3-64 of the spec's inputs (an edge type's schema
// label hashes "telha/edge_type/" and the big-endian edge type hash), and a blocklist id is
// blake3("telha/blocklist/v1" || keyed digest)[:16] for digests of any
// length (BlocklistID has a separate path for digests over 64 bytes).
func TestPropHashes(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		name := rapid.String().Draw(t, "name")
		if ModelIDOf(name) != ModelID(xxh3.HashString("vector_model/"+name)) ||
			HashEdgeType(name) != EdgeTypeHash(xxh3.HashString(name)) ||
			HashLabel(name) != LabelHash(xxh3.HashString(name)) ||
			HashProperty(name) != PropertyHash(xxh3.HashString(name)) ||
			HashBucket([]byte(name)) != BucketHash(xxh3.HashString(name)) {
			t.Fatalf("hashes of %q differ from xxh3", name)
		}
		if h := EdgeTypeHash(genHash.Draw(t, "edgeType")); EdgeTypeLabel(h) != refEdgeTypeLabel(h) {
			t.Fatalf("EdgeTypeLabel(%x) = %x, want %x", uint64(h), uint64(EdgeTypeLabel(h)), uint64(refEdgeTypeLabel(h)))
		}
		digest := rapid.SliceOfN(rapid.Byte(), 0, 200).Draw(t, "digest")
		if got, want := BlocklistID(digest), refBlocklistID(digest); got != want {
			t.Fatalf("BlocklistID(%x) = %s, want %s", digest, got, want)
		}
	})
}

func refEdgeTypeLabel(h EdgeTypeHash) LabelHash {
	return LabelHash(xxh3.Hash(cat([]byte("telha/edge_type/"), be64(uint64(h)))))
}

func refBlocklistID(digest []byte) uuid.UUID {
	sum := blake3.Sum256(cat([]byte("telha/blocklist/v1"), digest))
	return uuid.UUID(sum[:16])
}

// ParseKey accepts exactly the keys of its scope: bytes that decode in the
// requested family and start with the scope's prefix, and returns the key
// the constructors built.
func TestPropParseKey(t *testing.T) {
	families := rapid.SampledFrom(Families())
	checkProp(t, func(t *rapid.T) {
		owner := genScope.Draw(t, "owner")
		k, _ := genShape.Draw(t, "shape").draw(t, owner)
		s := owner
		if rapid.Bool().Draw(t, "otherScope") {
			s = drawOtherScope(t, owner)
		}
		cf := k.Family()
		if rapid.Bool().Draw(t, "otherFamily") {
			cf = families.Draw(t, "family")
		}
		b := k.Bytes()
		got, err := ParseKey(s, cf, b)
		_, decodeErr := Decode(cf, b)
		want := decodeErr == nil && bytes.HasPrefix(b, refPrefix(s))
		if (err == nil) != want {
			t.Fatalf("ParseKey(%s, %s, %x): err %v, want success %v", s, cf, b, err, want)
		}
		switch {
		case err == nil && (got.Family() != cf || !bytes.Equal(got.Bytes(), b)):
			t.Fatalf("ParseKey(%s, %s, %x) = %s %x", s, cf, b, got.Family(), got.Bytes())
		case err == nil && cf == k.Family() && got != k:
			t.Fatalf("ParseKey(%s, %x) = %v, want the key itself", s, b, got)
		case err != nil && decodeErr == nil && !errors.Is(err, ErrOutOfRange):
			t.Fatalf("ParseKey of another scope's key: %v, want ErrOutOfRange", err)
		}
	})
}
