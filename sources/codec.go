package sources

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// The values of this package's rows are versioned binary records: a
// format byte, then fixed-width big-endian fields and length-prefixed
// strings. One reader decodes them all, and never panics: a value cut
// short or padded is an error wrapping ErrCorrupt.

// valueFormat is the format byte every value of this package starts with.
const valueFormat = 1

// reader reads one value left to right. The first failure sticks: later
// reads return zero values, and err reports the first.
type reader struct {
	b    []byte
	what string
	err  error
}

// newReader starts reading value b, a row of kind what, after checking
// its format byte.
func newReader(what string, b []byte) *reader {
	r := &reader{b: b, what: what}
	if f := r.u8(); r.err == nil && f != valueFormat {
		r.fail("format %d, want %d", f, valueFormat)
	}
	return r
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s value: %s: %w", r.what, fmt.Sprintf(format, args...), ErrCorrupt)
	}
}

// take returns the next n bytes, or nil after a failure.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail("%d bytes left, want %d", len(r.b), n)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *reader) time() storage.Timestamp { return storage.Timestamp(r.u64()) }

func (r *reader) id() (id uuid.UUID) {
	copy(id[:], r.take(16))
	return id
}

// str reads a string of at most max bytes, length-prefixed.
func (r *reader) str(max uint32) string {
	n := r.u32()
	if r.err == nil && n > max {
		r.fail("string of %d bytes, longest %d", n, max)
	}
	return string(r.take(int(n)))
}

// count reads an element count, refusing one that the remaining bytes
// cannot hold at minWidth bytes per element, so that a forged count never
// makes the decoder allocate.
func (r *reader) count(minWidth int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(minWidth) > uint64(len(r.b)) {
		r.fail("%d elements of %d bytes in %d bytes", n, minWidth, len(r.b))
		return 0
	}
	return int(n)
}

// end checks that the value was read whole.
func (r *reader) end() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d trailing bytes", len(r.b))
	}
	return r.err
}

func appendU32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

func appendTime(b []byte, t storage.Timestamp) []byte { return appendU64(b, uint64(t)) }

func appendStr(b []byte, s string) []byte { return append(appendU32(b, uint32(len(s))), s...) }
