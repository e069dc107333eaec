package storage

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/zeebo/xxh3"
	"lukechampine.com/blake3"
	"pgregory.net/rapid"
)

// Properties of keys, for every key constructor of the layout table: the
// invariants of docs/design.md (injective and order-preserving encoding,
// scope first) and the scope rules.

// Every constructor writes exactly the bytes the layout table describes,
// field by field, by the reference encodings (a derived one, those of the
// direct call it stands for); its setter writes the same into a reused Key;
// the bytes decode, in the family, to parts that the table's constructors
// rebuild the key from; a tenant key carries its scope and parses back; a
// system key carries the all-zero prefix. A constructor refuses exactly the
// arguments whose bytes another layout of its family claims (the reserved
// slot).
func TestPropRoundTrip(t *testing.T) {
	for _, sh := range keyShapes {
		t.Run(sh.name, func(t *testing.T) {
			checkProp(t, func(t *rapid.T) {
				s := genScope.Draw(t, "scope")
				k, a := sh.drawKey(t, s)
				if f := sh.key(a); f != k {
					t.Fatalf("the function form gives %x, the setter %x", f.Bytes(), k.Bytes())
				}
				want, ok := sh.want(a)
				if !ok {
					if k.Valid() {
						t.Fatalf("%s = %x: a key whose bytes another layout of %s claims", sh.name, k.Bytes(), sh.layout.Family)
					}
					return
				}
				b := k.Bytes()
				if !k.Valid() || k.Family() != sh.layout.Family || k.Len() != sh.layout.Len() || !bytes.Equal(b, want) {
					t.Fatalf("%s = %s key %x (valid %v), want %s key %x", sh.name, k.Family(), b, k.Valid(), sh.layout.Family, want)
				}
				p, err := Decode(sh.layout.Family, b)
				if err != nil {
					t.Fatalf("decode(%s) = %v", k, err)
				}
				if re, ok := rebuild(sh.layout.Family, b); !ok || re != k {
					t.Fatalf("the parts %v of %x do not rebuild it", p, b)
				}
				if sh.system {
					if !p.keyScope().IsSystem() {
						t.Fatalf("system key %x decodes to scope %s", b, p.keyScope())
					}
					return
				}
				if p.keyScope() != keyScopeOf(s) {
					t.Fatalf("%x decodes to scope %s, want %s", b, p.keyScope(), s)
				}
				if parsed, err := ParseKey(s, sh.layout.Family, b); err != nil || parsed != k {
					t.Fatalf("ParseKey(%s, %x) = %v, %v; want the key itself", s, b, parsed, err)
				}
			})
		})
	}
}

// Two keys of one family have equal bytes exactly when they decode to equal
// parts, across shapes: the bitmap kinds, the reserved slot and the system
// rows never collide with another shape.
func TestPropInjective(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		s := genScope.Draw(t, "scope")
		k1, _ := genShape.Draw(t, "shape1").drawKey(t, s)
		k2, _ := genShape.Draw(t, "shape2").drawKey(t, s)
		if !k1.Valid() || !k2.Valid() {
			return // a refused argument
		}
		if k1.Family() != k2.Family() {
			if k1 == k2 {
				t.Fatalf("keys of %s and %s compare equal", k1.Family(), k2.Family())
			}
			return
		}
		p1, _ := Decode(k1.Family(), k1.Bytes())
		p2, _ := Decode(k2.Family(), k2.Bytes())
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
		k, _ := sh.drawKey(t, TenantScope{})
		if k.Valid() || k.Len() != 0 || len(k.Bytes()) != 0 || len(k.View()) != 0 || k.String() != "invalid key" {
			t.Fatalf("%s from the zero scope = %q (%d bytes), want an invalid Key", sh.name, k, k.Len())
		}
	})
}

// Byte order is the order the layout table states, for every constructor:
// scope first (the all-zero system scope before every tenant), then field
// by field, ids and integers ascending, ordered times ascending (jobs
// FIFO), inverted times descending (the latest version first), so that
// ties on one field fall through to the next. The second key's arguments
// are often the first's or their neighbours.
func TestPropFieldOrder(t *testing.T) {
	for _, sh := range keyShapes {
		if sh.derived() {
			continue // its hashed field has no order
		}
		t.Run(sh.name, func(t *testing.T) {
			checkProp(t, func(t *rapid.T) {
				s := genScope.Draw(t, "scope")
				a := sh.draw(t, s)
				b := args{sh.scopeArg(s)}
				if rapid.Bool().Draw(t, "otherScope") {
					b[0] = sh.scopeArg(drawOtherScope(t, s))
				}
				for i, v := range a[1:] {
					b = append(b, drawNear(t, v, fmt.Sprintf("arg%d", i+1)))
				}
				ka, kb := sh.key(a), sh.key(b)
				if !ka.Valid() || !kb.Valid() {
					return // a refused argument
				}
				if got, want := bytes.Compare(ka.Bytes(), kb.Bytes()), sh.compareArgs(a, b); got != want {
					t.Fatalf("%x and %x compare %d, their fields %d", ka.Bytes(), kb.Bytes(), got, want)
				}
			})
		})
	}
}

// The reserved slot of the sources family sorts first for its id: a
// redaction record before every version of the source.
func TestPropReservedSlotFirst(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		s, id := genScope.Draw(t, "scope"), genID.Draw(t, "id")
		x := genTime.Draw(t, "tx")
		k := SourceKey(s, id, x)
		if x == MaxTimestamp {
			if k.Valid() {
				t.Fatalf("SourceKey at MaxTimestamp, the reserved slot, = %x", k.Bytes())
			}
			return
		}
		if r := RedactionRecordKey(s, id); bytes.Compare(r.Bytes(), k.Bytes()) >= 0 {
			t.Fatalf("redaction record %x does not sort before %x", r.Bytes(), k.Bytes())
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
		if want := cmp.Compare(a, b); asc != want || inv != -want {
			t.Fatalf("compare(%d, %d) = %d: ascending bytes give %d, inverted %d", a, b, want, asc, inv)
		}
		if TimestampOf(a.Time()) != a || a.String() == "" {
			t.Fatalf("%d does not survive time.Time", a)
		}
	})
}

// The name hashes are xxh3-64 of their inputs (an edge type's schema label
// hashes "telha/edge_type/" and the big-endian edge type hash), and a
// blocklist id is blake3("telha/blocklist/v1" || keyed digest)[:16] for
// digests of any length (BlocklistID has a separate path for digests over
// 64 bytes); docs/design.md, Reserved rows, names them.
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
		k, _ := genShape.Draw(t, "shape").drawKey(t, owner)
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
