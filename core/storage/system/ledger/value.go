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

// Value format, version 1 (big-endian integers), the same bytes in the
// store and in a ledger file:
//
//	[0x01 version][kind 1][flags 1][entry id 16][tenant 16][organization 16]
//	[entity 16][recorded 8][verified 8][deletions 2]
//	deletions x [family 1][lower length 2][lower][upper flag 1]
//	            [upper length 2][upper][rows 8][bytes 8]
//	[crc32c 4] of everything before it
//
// Times are Unix microseconds. Flag bit 0 says the entry is verified
// (verified holds the time). An upper flag of 0 means "to the end of the
// family", with an upper length of 0. Every field is checked on read: a
// value that does not decode, or decodes to what Entry cannot be, is
// ErrBadEntry, never a panic.
const (
	valueVersion = 1
	flagVerified = 1

	headerLen   = 1 + 1 + 1 + 16 + 16 + 16 + 16 + 8 + 8 + 2
	checksumLen = 4
	// maxBoundLen bounds a stored bound: a key, and the one byte a
	// point range adds.
	maxBoundLen = storage.MaxKeyLen + 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encode returns the value of en.
func encode(en *Entry) ([]byte, error) {
	if len(en.Deletions) > math.MaxUint16 {
		return nil, fmt.Errorf("%w: %d deletions in one entry (at most %d)", ErrBadEntry, len(en.Deletions), math.MaxUint16)
	}
	b := make([]byte, 0, headerLen+len(en.Deletions)*(2*maxBoundLen+22)+checksumLen)
	var flags byte
	var verified int64
	if !en.Verified.IsZero() {
		flags, verified = flagVerified, en.Verified.UnixMicro()
	}
	tenant, org := en.Scope.Tenant(), en.Scope.Organization()
	b = append(b, valueVersion, byte(en.Kind), flags)
	b = append(b, en.ID[:]...)
	b = append(b, tenant[:]...)
	b = append(b, org[:]...)
	b = append(b, en.Entity[:]...)
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
	if v := r.u8(); v != valueVersion {
		return bad("version %d, want %d", v, valueVersion)
	}
	var en Entry
	en.Kind = Kind(r.u8())
	flags := r.u8()
	en.ID = r.id()
	tenant, org := r.id(), r.id()
	en.Entity = r.id()
	recorded, verified := int64(r.u64()), int64(r.u64())
	n := int(r.u16())
	switch {
	case !en.Kind.Valid():
		return bad("kind %d", uint8(en.Kind))
	case flags&^flagVerified != 0:
		return bad("flags %02x", flags)
	case flags == 0 && verified != 0:
		return bad("a verification time without the verified flag")
	case en.ID == uuid.Nil:
		return bad("nil entry id")
	case (en.Kind == KindEntity) != (en.Entity != uuid.Nil):
		return bad("a %s erasure with entity %s", en.Kind, en.Entity)
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
	if r.short || r.off != len(body) {
		return bad("%d bytes, the entry takes %d", len(body), r.off)
	}
	return en, nil
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
