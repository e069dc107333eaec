package ledger

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Value format (big-endian integers), the same bytes in the store and in a
// ledger file. Version 1, the value of a tenant or entity erasure:
//
//	[0x01 version][kind 1][flags 1][entry id 16][tenant 16][organization 16]
//	[entity 16][recorded 8][verified 8][deletions 2]
//	deletions x [family 1][lower length 2][lower][upper flag 1]
//	            [upper length 2][upper][rows 8][bytes 8]
//	[crc32c 4] of everything before it
//
// Version 2, the value of a redaction (KindRedaction, and no other kind),
// is version 1 with the version byte 0x02 and, between the deletions
// (none, for a redaction) and the checksum, the redaction section:
//
//	[redaction flags 1][keyed digest 32][ranges 2] ranges x [start 8][end 8]
//
// Version 3, the value of an entry that names its deployment or lists
// members pending (any kind), is version 1 with the version byte 0x03, the
// deployment id after the entity, and, between the deletions and the
// checksum, the redaction section (for a redaction alone) and the pending
// members:
//
//	... [entity 16][deployment 16][recorded 8] ... deletions ...
//	[redaction section, KindRedaction only]
//	[pending 1] pending x [name length 1][name]
//
// An entry is written in the lowest version that holds it, so entries
// made before a version existed keep their bytes, and every value decodes
// and encodes back to the same bytes.
//
// Times are Unix microseconds. Flag bit 0 says the entry is verified
// (verified holds the time). An upper flag of 0 means "to the end of the
// family", with an upper length of 0. Redaction flag bit 0 says the blob
// was deleted, bit 1 that the facts its spans produced are erased too.
// Every field is checked on read: a value that does not decode, or
// decodes to what Entry cannot be (Entry.check), is ErrBadEntry, never a
// panic.
const (
	valueVersion     = 1
	redactionVersion = 2
	namedVersion     = 3
	flagVerified     = 1

	redactionDeleted    = 1
	redactionEraseFacts = 2

	headerLen   = 1 + 1 + 1 + 16 + 16 + 16 + 16 + 8 + 8 + 2
	checksumLen = 4
	// deploymentLen is what version 3 adds to the header.
	deploymentLen = 16
	// maxBoundLen bounds a stored bound: a key, and the one byte a
	// point range adds.
	maxBoundLen = storage.MaxKeyLen + 1
	// rangeLen is the width of a redacted range; redactionLen that of a
	// redaction section without its ranges.
	rangeLen     = 8 + 8
	redactionLen = 1 + 32 + 2
	// maxPendingLen bounds the pending members of version 3.
	maxPendingLen = 1 + maxPending*(1+maxMemberName)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encode returns the value of en.
func encode(en *Entry) ([]byte, error) {
	if len(en.Deletions) > math.MaxUint16 {
		return nil, fmt.Errorf("%w: %d deletions in one entry (at most %d)", ErrBadEntry, len(en.Deletions), math.MaxUint16)
	}
	version, ranges := valueVersion, 0
	if en.Redaction != nil {
		version, ranges = redactionVersion, len(en.Redaction.Ranges)
		if ranges > math.MaxUint16 {
			return nil, fmt.Errorf("%w: %d redacted ranges in one entry (at most %d)", ErrBadEntry, ranges, math.MaxUint16)
		}
	}
	if en.Deployment != uuid.Nil || len(en.Pending) > 0 {
		version = namedVersion
	}
	if err := en.checkPending(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, headerLen+deploymentLen+len(en.Deletions)*(2*maxBoundLen+22)+redactionLen+ranges*rangeLen+maxPendingLen+checksumLen)
	var flags byte
	var verified int64
	if !en.Verified.IsZero() {
		flags, verified = flagVerified, en.Verified.UnixMicro()
	}
	tenant, org := en.Scope.Tenant(), en.Scope.Organization()
	b = append(b, byte(version), byte(en.Kind), flags)
	b = append(b, en.ID[:]...)
	b = append(b, tenant[:]...)
	b = append(b, org[:]...)
	b = append(b, en.Entity[:]...)
	if version == namedVersion {
		b = append(b, en.Deployment[:]...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(en.Recorded.UnixMicro()))
	b = binary.BigEndian.AppendUint64(b, uint64(verified))
	b = binary.BigEndian.AppendUint16(b, uint16(len(en.Deletions)))
	for _, d := range en.Deletions {
		if len(d.Lower) > maxBoundLen || len(d.Upper) > maxBoundLen {
			return nil, fmt.Errorf("%w: a bound longer than %d bytes", ErrBadEntry, maxBoundLen)
		}
		b = append(b, byte(d.Family))
		b = binary.BigEndian.AppendUint16(b, uint16(len(d.Lower)))
		b = append(b, d.Lower...)
		if d.Upper == nil {
			b = append(b, 0, 0, 0)
		} else {
			b = append(b, 1)
			b = binary.BigEndian.AppendUint16(b, uint16(len(d.Upper)))
			b = append(b, d.Upper...)
		}
		b = binary.BigEndian.AppendUint64(b, d.Rows)
		b = binary.BigEndian.AppendUint64(b, d.Bytes)
	}
	if rd := en.Redaction; rd != nil {
		var rflags byte
		if rd.Deleted {
			rflags |= redactionDeleted
		}
		if rd.EraseFacts {
			rflags |= redactionEraseFacts
		}
		b = append(b, rflags)
		b = append(b, rd.KeyedDigest[:]...)
		b = binary.BigEndian.AppendUint16(b, uint16(ranges))
		for _, r := range rd.Ranges {
			b = binary.BigEndian.AppendUint64(b, r.Start)
			b = binary.BigEndian.AppendUint64(b, r.End)
		}
	}
	if version == namedVersion {
		b = append(b, byte(len(en.Pending)))
		for _, m := range en.Pending {
			b = append(b, byte(len(m)))
			b = append(b, m...)
		}
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// decode returns the entry of value b.
func decode(b []byte) (Entry, error) {
	bad := func(format string, args ...any) (Entry, error) {
		return Entry{}, fmt.Errorf("%w: "+format, append([]any{ErrBadEntry}, args...)...)
	}
	if len(b) < headerLen+checksumLen {
		return bad("%d bytes, shorter than the %d of an empty entry", len(b), headerLen+checksumLen)
	}
	body, sum := b[:len(b)-checksumLen], binary.BigEndian.Uint32(b[len(b)-checksumLen:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return bad("checksum %08x, want %08x", got, sum)
	}
	r := reader{b: body}
	version := r.u8()
	if version < valueVersion || version > namedVersion {
		return bad("version %d, want %d to %d", version, valueVersion, namedVersion)
	}
	var en Entry
	en.Kind = Kind(r.u8())
	flags := r.u8()
	en.ID = r.id()
	tenant, org := r.id(), r.id()
	en.Entity = r.id()
	if version == namedVersion {
		en.Deployment = r.id()
	}
	recorded, verified := int64(r.u64()), int64(r.u64())
	n := int(r.u16())
	switch {
	case flags&^flagVerified != 0:
		return bad("flags %02x", flags)
	case flags == 0 && verified != 0:
		return bad("a verification time without the verified flag")
	case version != namedVersion && (version == redactionVersion) != (en.Kind == KindRedaction):
		return bad("a %s erasure in version %d", en.Kind, version)
	}
	scope, err := storage.NewTenantScope(tenant, org)
	if err != nil {
		return bad("scope: %v", err)
	}
	en.Scope = scope
	en.Recorded = time.UnixMicro(recorded).UTC()
	if flags&flagVerified != 0 {
		en.Verified = time.UnixMicro(verified).UTC()
	}
	en.Deletions = make([]Deletion, 0, min(n, len(body)/24))
	for i := range n {
		var d Deletion
		d.Family = storage.ColumnFamily(r.u8())
		d.Lower = r.bytes(int(r.u16()))
		hasUpper, upperLen := r.u8(), int(r.u16())
		d.Upper = r.bytes(upperLen)
		d.Rows, d.Bytes = r.u64(), r.u64()
		switch {
		case r.short:
			return bad("deletion %d: value cut short", i)
		case !d.Family.Valid():
			return bad("deletion %d: family %d", i, uint8(d.Family))
		case len(d.Lower) > maxBoundLen || len(d.Upper) > maxBoundLen:
			return bad("deletion %d: a bound longer than %d bytes", i, maxBoundLen)
		case hasUpper > 1 || hasUpper == 0 && upperLen != 0:
			return bad("deletion %d: upper flag %d with %d bytes", i, hasUpper, upperLen)
		case hasUpper == 0:
			d.Upper = nil
		}
		en.Deletions = append(en.Deletions, d)
	}
	if version == redactionVersion || version == namedVersion && en.Kind == KindRedaction {
		en.Redaction = decodeRedaction(&r)
		if r.short {
			return bad("redaction cut short")
		}
		if en.Redaction == nil {
			return bad("redaction flags")
		}
	}
	if version == namedVersion {
		en.Pending = decodePending(&r)
		if r.short {
			return bad("pending members cut short")
		}
		if en.Deployment == uuid.Nil && len(en.Pending) == 0 {
			return bad("a version %d entry that names no deployment and no member", version)
		}
	}
	if r.short || r.off != len(body) {
		return bad("%d bytes, the entry takes %d", len(body), r.off)
	}
	if err := en.check(); err != nil {
		return Entry{}, err
	}
	return en, nil
}

// decodeRedaction reads a redaction section, or returns nil for one whose
// flags name no flag of this version.
func decodeRedaction(r *reader) *Redaction {
	flags := r.u8()
	rd := &Redaction{Deleted: flags&redactionDeleted != 0, EraseFacts: flags&redactionEraseFacts != 0}
	copy(rd.KeyedDigest[:], r.take(32))
	n := int(r.u16())
	if n*rangeLen > len(r.b)-r.off {
		r.short = true
		return rd
	}
	rd.Ranges = make([]storage.BlobRange, 0, n)
	for range n {
		rd.Ranges = append(rd.Ranges, storage.BlobRange{Start: r.u64(), End: r.u64()})
	}
	if flags&^(redactionDeleted|redactionEraseFacts) != 0 {
		return nil
	}
	return rd
}

// decodePending reads the pending members of version 3; nil if none.
func decodePending(r *reader) []string {
	n := int(r.u8())
	var out []string
	for range n {
		m := r.take(int(r.u8()))
		if r.short {
			return nil
		}
		out = append(out, string(m))
	}
	return out
}

// reader reads a value front to back; a read past the end sets short and
// returns zeros, so that decode checks once per field group.
type reader struct {
	b     []byte
	off   int
	short bool
}

func (r *reader) take(n int) []byte {
	if r.short || n > len(r.b)-r.off {
		r.short = true
		return make([]byte, n)
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() uint8     { return r.take(1)[0] }
func (r *reader) u16() uint16   { return binary.BigEndian.Uint16(r.take(2)) }
func (r *reader) u64() uint64   { return binary.BigEndian.Uint64(r.take(8)) }
func (r *reader) id() uuid.UUID { return uuid.UUID(r.take(16)) }
func (r *reader) bytes(n int) []byte {
	return append([]byte{}, r.take(n)...)
}
