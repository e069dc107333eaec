package storage

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// Properties of Valid under tampering: a Key or ScanRange changed after it
// was built (through View or Bounds, whose slices alias it, or through
// unsafe) is valid only if it still describes something a constructor could
// have built. Engines rely on this: they call Valid on everything they are
// handed.

// refKeyValid is the rule of Key.Valid stated through the decoders: the
// bytes decode as a key of the family, and the scope is a tenant's, or the
// system scope in a key marked system of a family that holds system rows.
func refKeyValid(k Key) bool {
	n := int(k.n &^ systemBit)
	if n > MaxKeyLen {
		return false
	}
	p, err := Decode(k.family, k.b[:n])
	if err != nil {
		return false
	}
	system := p.keyScope().IsSystem()
	if k.n&systemBit != 0 {
		return system && systemConstructors(k.family)
	}
	return !system
}

// tamperKey changes k as a caller holding its View, or unsafe, could.
func tamperKey(t *rapid.T, k *Key) {
	b := k.b[:]
	switch rapid.IntRange(0, 6).Draw(t, "tamper") {
	case 0: // one byte
		b[rapid.IntRange(0, MaxKeyLen-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
	case 1: // the tenant id, the organization id, or both, to nil
		half := rapid.SampledFrom([][2]int{{0, 16}, {16, ScopeLen}, {0, ScopeLen}}).Draw(t, "ids")
		clear(b[half[0]:half[1]])
	case 2: // the whole scope to another tenant's
		copy(b, refPrefix(genScope.Draw(t, "other")))
	case 3:
		k.n = rapid.Uint8().Draw(t, "n")
	case 4:
		k.n ^= systemBit
	case 5:
		k.family = ColumnFamily(rapid.Uint8().Draw(t, "family"))
	case 6: // a discriminator: index kind, job state, bitmap kind
		b[rapid.SampledFrom([]int{TemporalIndexKeyLen - 1, ScopeLen, bitmapKindOffset}).Draw(t, "at")] = rapid.Byte().Draw(t, "kind")
	}
}

func TestPropTamperedKeys(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		k, _ := genShape.Draw(t, "shape").drawKey(t, genScope.Draw(t, "scope"))
		tamperKey(t, &k)
		if got, want := k.Valid(), refKeyValid(k); got != want {
			t.Fatalf("tampered key %s %x (n=%#x): Valid() = %v, want %v", k.family, k.b[:min(int(k.n&^systemBit), MaxKeyLen)], k.n, got, want)
		}
	})
}

// CheckKeyBytes accepts exactly the bytes that a valid Key of the family
// holds: those that decode, in a tenant scope or, where the family holds
// system rows, the system scope.
func TestPropCheckKeyBytes(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		k, _ := genShape.Draw(t, "shape").drawKey(t, genScope.Draw(t, "scope"))
		tamperKey(t, &k)
		cf := k.family
		if rapid.Bool().Draw(t, "otherFamily") {
			cf = ColumnFamily(rapid.IntRange(0, int(LastFamily)+1).Draw(t, "family"))
		}
		b := k.b[:min(int(k.n&^systemBit), MaxKeyLen)]
		p, decodeErr := Decode(cf, b)
		want := decodeErr == nil && (!p.keyScope().IsSystem() || systemConstructors(cf))
		if err := CheckKeyBytes(cf, b); (err == nil) != want {
			t.Fatalf("CheckKeyBytes(%s, %x) = %v, want success %v", cf, b, err, want)
		}
	})
}

func TestCheckKeyBytesErrors(t *testing.T) {
	node := NodeVersionKey(fxS, fxA, fxValid, fxTx).Bytes()
	tests := []struct {
		name string
		cf   ColumnFamily
		b    []byte
		want error
	}{
		{"unknown family", 0, node, ErrUnknownFamily},
		{"short", NodeVersions, node[:40], ErrWrongLength},
		{"half-nil scope", NodeVersions, with(node, 16, make([]byte, 16)...), ErrHalfNilScope},
		{"system scope in node_versions", NodeVersions, with(node, 0, make([]byte, ScopeLen)...), ErrNilScope},
		{"unknown job state", Jobs, with(JobKey(fxS, JobQueued, 0, 0, fxA).Bytes(), ScopeLen, 0x7f), ErrUnknownKind},
	}
	for _, tt := range tests {
		if err := CheckKeyBytes(tt.cf, tt.b); !errors.Is(err, tt.want) {
			t.Errorf("%s: CheckKeyBytes = %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := CheckKeyBytes(Jobs, SystemScope{}.JobKey(JobQueued, 0, 0, fxA).Bytes()); err != nil {
		t.Errorf("system job key: %v", err)
	}
}

// nextScopeKeys are the smallest keys of every length whose scope follows
// scope: a range confined to scope must hold none of them. Nil for the
// all-0xFF scope, which nothing follows.
func nextScopeKeys(scope []byte) [][]byte {
	succ := refSucc(scope)
	if succ == nil {
		return nil
	}
	var keys [][]byte
	for n := BitmapAllocKeyLen; n <= MaxKeyLen; n++ {
		keys = append(keys, append(bytes.Clone(succ), make([]byte, n-len(succ))...))
	}
	return keys
}

// A range stays valid only while its bounds keep it inside one scope of the
// kind it was built for; a valid range, however tampered with, holds no key
// of the scope after its own, and a tenant range never starts in the system
// scope or a half-nil one.
func TestPropTamperedRanges(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		rc := rapid.SampledFrom(rangeCases).Draw(t, "constructor")
		d := rc.draw(t, genScope.Draw(t, "scope"))
		r := d.r
		if d.err != nil || !r.Valid() {
			return
		}
		lower, upper := r.Bounds()
		switch rapid.IntRange(0, 5).Draw(t, "tamper") {
		case 0:
			lower[rapid.IntRange(0, len(lower)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
		case 1:
			if upper != nil {
				upper[rapid.IntRange(0, len(upper)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
			}
		case 2:
			from := rapid.SampledFrom([]int{0, 16}).Draw(t, "from")
			clear(lower[from : from+16])
		case 3:
			r.upper = nil
		case 4:
			r.system = !r.system
		case 5:
			r.family = ColumnFamily(rapid.Uint8().Draw(t, "family"))
		}
		if !r.Valid() {
			return
		}
		scope := r.lower[:ScopeLen]
		if !r.system && !isTenantPrefix(scope) {
			t.Fatalf("valid tenant range %s starts in scope %x", r, scope)
		}
		for _, k := range nextScopeKeys(scope) {
			if r.containsBytes(k) {
				t.Fatalf("valid range %s holds %x, of the next scope", r, k)
			}
		}
	})
}

// The ranges a constructor builds are valid; tampered ones that a
// constructor could not build are not.
func TestTamperedRangeExamples(t *testing.T) {
	tenantNodes := func() ScanRange { return TenantAll(fxS, NodeVersions) }
	tests := []struct {
		name   string
		tamper func(r *ScanRange)
	}{
		{"upper raised into the next scope", func(r *ScanRange) { r.upper = append(bytes.Clone(r.upper), 0) }},
		{"upper removed", func(r *ScanRange) { r.upper = nil }},
		{"lower moved to the system scope", func(r *ScanRange) { clear(r.lower) }},
		{"tenant id cleared", func(r *ScanRange) { clear(r.lower[:16]) }},
		{"organization id cleared", func(r *ScanRange) { clear(r.lower[16:ScopeLen]) }},
		{"marked system", func(r *ScanRange) { r.system = true }},
		{"marked as crossing scopes", func(r *ScanRange) { r.crossesScopes = true }},
		{"lower shortened", func(r *ScanRange) { r.lower = r.lower[:ScopeLen-1] }},
		{"unknown family", func(r *ScanRange) { r.family = LastFamily + 1 }},
	}
	for _, tt := range tests {
		r := tenantNodes()
		if !r.Valid() {
			t.Fatal("TenantAll is not valid")
		}
		tt.tamper(&r)
		if r.Valid() {
			t.Errorf("%s: still valid: %s", tt.name, r)
		}
	}
	sys := SystemScope{}.JobsInState(JobQueued)
	sys.system = false
	if sys.Valid() {
		t.Error("a system range unmarked as system is still valid")
	}
}
