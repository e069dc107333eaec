package credentials

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"
	"unicode"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// MaxNameLen is the longest label of a key, in bytes.
const MaxNameLen = 128

// Key is what the store keeps of an API key, the digest aside: safe to
// print and list.
type Key struct {
	ID      uuid.UUID
	Scope   storage.TenantScope
	Name    string
	Created time.Time
	Expires time.Time // zero: never
	Revoked time.Time // zero: not revoked
}

// format is the key's format field: the version of the row's value.
const format = 1

// A row's value, format 1:
//
//	[scope 32][digest 32][created 8][expires 8][revoked 8][name len 1][name]
//
// Times are storage.Timestamp (microseconds since 1970, big-endian); 0 is
// "never" for expires and "not revoked" for revoked.
const fixedLen = storage.ScopeLen + sha256.Size + 8 + 8 + 8 + 1

// row is one decoded version of a key.
type row struct {
	Key
	digest [sha256.Size]byte
}

func encodeRow(r row) []byte {
	b := make([]byte, 0, fixedLen+len(r.Name))
	t, o := r.Scope.Tenant(), r.Scope.Organization()
	b = append(b, t[:]...)
	b = append(b, o[:]...)
	b = append(b, r.digest[:]...)
	b = binary.BigEndian.AppendUint64(b, timeField(r.Created))
	b = binary.BigEndian.AppendUint64(b, timeField(r.Expires))
	b = binary.BigEndian.AppendUint64(b, timeField(r.Revoked))
	b = append(b, byte(len(r.Name)))
	return append(b, r.Name...)
}

// timeField encodes t, 0 for the zero time.
func timeField(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(storage.TimestampOf(t))
}

// fieldTime decodes a time field.
func fieldTime(v uint64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return storage.Timestamp(v).Time()
}

// decodeRow decodes the value of key id's row. A scope with a nil
// component (the system scope among them) is ErrCorrupt.
func decodeRow(id uuid.UUID, v []byte) (row, error) {
	if len(v) < fixedLen || len(v) != fixedLen+int(v[fixedLen-1]) {
		return row{}, fmt.Errorf("key %s: %w: %d bytes", id, ErrCorrupt, len(v))
	}
	scope, err := storage.NewTenantScope(uuid.UUID(v[0:16]), uuid.UUID(v[16:32]))
	if err != nil {
		return row{}, fmt.Errorf("key %s: %w: %w", id, ErrCorrupt, err)
	}
	r := row{Key: Key{ID: id, Scope: scope}, digest: [sha256.Size]byte(v[32:64])}
	r.Created = fieldTime(binary.BigEndian.Uint64(v[64:]))
	r.Expires = fieldTime(binary.BigEndian.Uint64(v[72:]))
	r.Revoked = fieldTime(binary.BigEndian.Uint64(v[80:]))
	r.Name = string(v[fixedLen:])
	if r.Created.IsZero() || checkName(r.Name) != nil {
		return row{}, fmt.Errorf("key %s: %w: no creation time or a bad name", id, ErrCorrupt)
	}
	return r, nil
}

// checkName refuses a label too long or with control characters.
func checkName(name string) error {
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrBadName, len(name), MaxNameLen)
	}
	for _, c := range name {
		if unicode.IsControl(c) || c == unicode.ReplacementChar {
			return fmt.Errorf("%w: %q holds a control or invalid character", ErrBadName, name)
		}
	}
	return nil
}
