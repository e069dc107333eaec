package jobs

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
)

// The job value format, version 1. All integers are big-endian.
//
//	offset  size  field
//	0       1     version, valueVersion (0x01)
//	1       4     attempts: claims so far, uint32
//	5       4     max attempts, uint32, at least 1
//	9       8     not before: backoff end, Unix microseconds, int64 (0: none)
//	17      8     lease expiry, Unix microseconds, int64 (0: not leased)
//	25      16    lease token: one claim's identity (zero: not leased)
//	41      1     owner length n, at most MaxOwnerLen
//	42      n     owner, the leasing worker's name
//	42+n    2     last error length m, at most MaxErrorLen
//	44+n    m     last error, the cause given to Fail
//	44+n+m  rest  payload, opaque
//
// The lease record (owner, expiry, token) travels in the value so that a
// state change is one delete and one put in one batch. The token tells two
// leases of the same owner apart: a worker that lost its lease to the reaper
// and claimed the job again must not complete it with the old lease.
const (
	valueVersion  = 0x01
	valueFixedLen = 44

	// MaxOwnerLen is the longest lease owner name, in bytes.
	MaxOwnerLen = 255

	// MaxErrorLen is the longest last error kept in a job, in bytes; Fail
	// truncates longer ones.
	MaxErrorLen = 1024
)

// record is a decoded job value.
type record struct {
	attempts    uint32
	maxAttempts uint32
	notBefore   int64 // Unix microseconds
	leaseExpiry int64 // Unix microseconds
	token       uuid.UUID
	owner       string
	lastError   string
	payload     []byte
}

// encode appends the value bytes of r to dst. Callers keep owner and
// lastError within their limits; encode truncates to stay decodable.
func (r *record) encode(dst []byte) []byte {
	owner := truncate(r.owner, MaxOwnerLen)
	lastError := truncate(r.lastError, MaxErrorLen)
	dst = append(dst, valueVersion)
	dst = binary.BigEndian.AppendUint32(dst, r.attempts)
	dst = binary.BigEndian.AppendUint32(dst, r.maxAttempts)
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.notBefore))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.leaseExpiry))
	dst = append(dst, r.token[:]...)
	dst = append(dst, byte(len(owner)))
	dst = append(dst, owner...)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(lastError)))
	dst = append(dst, lastError...)
	return append(dst, r.payload...)
}

// decodeRecord parses value bytes. It never panics: any malformed input
// returns an error wrapping ErrBadValue. The payload is copied, so the
// record does not alias b.
func decodeRecord(b []byte) (record, error) {
	if len(b) < valueFixedLen {
		return record{}, fmt.Errorf("decode job value: %w: %d bytes, want at least %d", ErrBadValue, len(b), valueFixedLen)
	}
	if b[0] != valueVersion {
		return record{}, fmt.Errorf("decode job value: %w: version 0x%02x", ErrBadValue, b[0])
	}
	r := record{
		attempts:    binary.BigEndian.Uint32(b[1:5]),
		maxAttempts: binary.BigEndian.Uint32(b[5:9]),
		notBefore:   int64(binary.BigEndian.Uint64(b[9:17])),
		leaseExpiry: int64(binary.BigEndian.Uint64(b[17:25])),
		token:       uuid.UUID(b[25:41]),
	}
	if r.maxAttempts == 0 {
		return record{}, fmt.Errorf("decode job value: %w: max attempts 0", ErrBadValue)
	}
	rest := b[41:]
	n := int(rest[0])
	rest = rest[1:]
	if len(rest) < n+2 {
		return record{}, fmt.Errorf("decode job value: %w: owner of %d bytes overruns the value", ErrBadValue, n)
	}
	r.owner, rest = string(rest[:n]), rest[n:]
	m := int(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if m > MaxErrorLen || len(rest) < m {
		return record{}, fmt.Errorf("decode job value: %w: last error of %d bytes", ErrBadValue, m)
	}
	r.lastError, rest = string(rest[:m]), rest[m:]
	r.payload = append([]byte(nil), rest...)
	return r, nil
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
