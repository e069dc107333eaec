package jobs

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// A lease handle is a Lease as text, for a worker that holds it outside
// this process (a client of the network API): everything Heartbeat,
// Complete and Fail check, and nothing else. It is
//
//	"l1." base64url(id 16 | priority 1 | created µs 8 | token 16 | owner)
//
// A handle proves nothing by itself: the queue checks it against the job
// as stored (its owner and its claim's token, a 128-bit random secret), so
// a handle made up or kept past its claim is ErrLeaseLost, ErrWrongOwner
// or ErrUnknownJob, as a stale Lease is.
const handlePrefix = "l1."

// handleFixed is the width of a handle's fixed fields.
const handleFixed = 16 + 1 + 8 + 16

// Handle returns the lease as text; ParseHandle reads it back.
func (l Lease) Handle() string {
	b := make([]byte, 0, handleFixed+len(l.Owner))
	b = append(b, l.ID[:]...)
	b = append(b, uint8(l.Priority))
	b = binary.BigEndian.AppendUint64(b, uint64(micros(l.Created)))
	b = append(b, l.token[:]...)
	b = append(b, l.Owner...)
	return handlePrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ParseHandle returns the lease a handle names: its Ref, its Owner and
// its claim's token, the rest of its Job left zero (the queue reads the
// job when the lease is presented); ErrBadLease if s is not a handle.
func ParseHandle(s string) (Lease, error) {
	rest, ok := strings.CutPrefix(s, handlePrefix)
	if !ok || len(rest) > base64.RawURLEncoding.EncodedLen(handleFixed+MaxOwnerLen) {
		return Lease{}, fmt.Errorf("parse lease handle: %w", ErrBadLease)
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	// The decoder skips line breaks: a handle is the one text that
	// encodes its bytes.
	if err != nil || len(b) <= handleFixed || len(b)-handleFixed > MaxOwnerLen || base64.RawURLEncoding.EncodeToString(b) != rest {
		return Lease{}, fmt.Errorf("parse lease handle: %w", ErrBadLease)
	}
	var l Lease
	l.ID = uuid.UUID(b[:16])
	l.Priority = Priority(b[16])
	l.Created = storage.Timestamp(binary.BigEndian.Uint64(b[17:25])).Time()
	l.token = uuid.UUID(b[25:41])
	l.Owner = string(b[handleFixed:])
	if l.ID == uuid.Nil || l.token == uuid.Nil {
		return Lease{}, fmt.Errorf("parse lease handle: %w", ErrBadLease)
	}
	return l, nil
}
