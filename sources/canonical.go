package sources

import (
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"
	"lukechampine.com/blake3"
)

// BlobID returns the blob id of canonical text: the first 16 bytes of its
// blake3-256 hash.
func BlobID(text []byte) uuid.UUID {
	sum := blake3.Sum256(text)
	return idOfHash(sum)
}

func idOfHash(sum [32]byte) (id uuid.UUID) {
	copy(id[:], sum[:16])
	return id
}

// CheckCanonical returns nil if text is canonical: valid UTF-8. Otherwise
// the error wraps ErrNotCanonical and names the offset of the first
// invalid byte.
func CheckCanonical(text []byte) error {
	var c canonicalChecker
	c.write(text)
	return c.close()
}

// canonicalChecker checks canonical text written to it in pieces, whose
// boundaries may fall inside a character: it keeps the bytes of an
// unfinished character for the next piece.
type canonicalChecker struct {
	off     int64 // of the first byte of pending
	pending [utf8.UTFMax]byte
	n       int
	err     error
}

func (c *canonicalChecker) write(p []byte) {
	for c.err == nil && len(p) > 0 {
		if c.n == 0 {
			// The fast path: every full character of p at once.
			valid := validPrefix(p)
			c.off += int64(valid)
			p = p[valid:]
			if len(p) == 0 {
				return
			}
			if utf8.FullRune(p) {
				c.err = fmt.Errorf("byte %d: %w", c.off, ErrNotCanonical)
				return
			}
			c.n = copy(c.pending[:], p)
			return
		}
		// A character split across pieces: complete it byte by byte.
		c.pending[c.n] = p[0]
		c.n++
		p = p[1:]
		if !utf8.FullRune(c.pending[:c.n]) {
			continue
		}
		if r, size := utf8.DecodeRune(c.pending[:c.n]); r == utf8.RuneError && size <= 1 || size != c.n {
			c.err = fmt.Errorf("byte %d: %w", c.off, ErrNotCanonical)
			return
		}
		c.off += int64(c.n)
		c.n = 0
	}
}

// close reports the result: an unfinished character at the end is invalid.
func (c *canonicalChecker) close() error {
	if c.err == nil && c.n > 0 {
		c.err = fmt.Errorf("byte %d: unfinished character at the end: %w", c.off, ErrNotCanonical)
	}
	return c.err
}

// validPrefix returns the length of the longest prefix of p made of whole,
// valid characters.
func validPrefix(p []byte) int {
	if utf8.Valid(p) {
		return len(p)
	}
	i := 0
	for i < len(p) {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return i
}
