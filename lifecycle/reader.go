package lifecycle

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"telha.dev/core/storage"
)

// exportReader reads an export as a stream and checks it as it goes: the
// header; each row's frame, family, order and scope; and at the end the
// counts and the checksum. It never allocates more for a row than the
// bytes the file really holds, so a frame that declares a huge length in a
// short file costs nothing.
type exportReader struct {
	in     *bufio.Reader
	sum    hash.Hash
	n      int64 // bytes consumed
	header Header
	rows   []uint64 // per family of the header
	fam    int      // the index in header.Families of the last row's family
	last   []byte   // the last row's key
	done   bool
	one    [1]byte // ReadByte's scratch, so that summing a byte does not allocate
}

// newExportReader reads and checks the header of the export in r.
func newExportReader(r io.Reader) (*exportReader, error) {
	x := &exportReader{in: bufio.NewReaderSize(r, 64<<10), sum: newSum()}
	h, err := readHeader(x)
	if err != nil {
		return nil, err
	}
	x.header, x.rows = h, make([]uint64, len(h.Families))
	return x, nil
}

// Read reads from the file into the checksum.
func (x *exportReader) Read(b []byte) (int, error) {
	n, err := x.in.Read(b)
	_, _ = x.sum.Write(b[:n])
	x.n += int64(n)
	return n, err
}

// ReadByte reads one byte into the checksum.
func (x *exportReader) ReadByte() (byte, error) {
	c, err := x.in.ReadByte()
	if err == nil {
		x.one[0] = c
		_, _ = x.sum.Write(x.one[:])
		x.n++
	}
	return c, err
}

// next returns the next row: its family, and its key and value, which
// are the caller's to keep. After the last row it checks the trailer and
// returns io.EOF, or the error that the rest of the file is.
func (x *exportReader) next() (storage.ColumnFamily, []byte, []byte, error) {
	if x.done {
		return 0, nil, nil, io.EOF
	}
	tag, err := x.ReadByte()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read export frame at byte %d: %w", x.n, truncated(err))
	}
	switch tag {
	case tagEnd:
		x.done = true
		if err := x.trailer(); err != nil {
			return 0, nil, nil, err
		}
		return 0, nil, nil, io.EOF
	case tagRow:
	default:
		return 0, nil, nil, fmt.Errorf("read export frame at byte %d: tag 0x%02x: %w", x.n-1, tag, ErrCorruptFile)
	}
	at := x.n - 1
	cf, key, value, err := x.row()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read export row at byte %d: %w", at, err)
	}
	return cf, key, value, nil
}

// row reads and checks one row frame after its tag.
func (x *exportReader) row() (storage.ColumnFamily, []byte, []byte, error) {
	c, err := x.ReadByte()
	if err != nil {
		return 0, nil, nil, truncated(err)
	}
	cf := storage.ColumnFamily(c)
	fam := x.familyIndex(cf)
	if fam < 0 {
		return 0, nil, nil, fmt.Errorf("family %d not in the header: %w", c, ErrCorruptFile)
	}
	keyLen, err := binary.ReadUvarint(x)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("key length: %w", varintError(err))
	}
	valueLen, err := binary.ReadUvarint(x)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("value length: %w", varintError(err))
	}
	if keyLen < storage.ScopeLen || keyLen > storage.MaxKeyLen {
		return 0, nil, nil, fmt.Errorf("%s key of %d bytes: %w", cf, keyLen, ErrCorruptFile)
	}
	if valueLen > maxFrameValue {
		return 0, nil, nil, fmt.Errorf("%s value of %d bytes, over %d: %w", cf, valueLen, maxFrameValue, ErrCorruptFile)
	}
	key := make([]byte, keyLen)
	if err := readFull(x, key); err != nil {
		return 0, nil, nil, err
	}
	value, err := x.readValue(int(valueLen))
	if err != nil {
		return 0, nil, nil, err
	}
	if _, err := storage.ParseKey(x.header.Scope, cf, key); err != nil {
		if errors.Is(err, storage.ErrOutOfRange) {
			return 0, nil, nil, fmt.Errorf("%s key %x, not of %s: %w", cf, key, x.header.Scope, ErrForeignRow)
		}
		return 0, nil, nil, fmt.Errorf("%s key %x: %w: %w", cf, key, ErrCorruptFile, err)
	}
	switch {
	case fam < x.fam:
		return 0, nil, nil, fmt.Errorf("%s row after a row of %s: %w", cf, x.header.Families[x.fam], ErrCorruptFile)
	case fam == x.fam && x.last != nil && bytes.Compare(key, x.last) <= 0:
		return 0, nil, nil, fmt.Errorf("%s key %x not after %x: %w", cf, key, x.last, ErrCorruptFile)
	}
	x.fam, x.last = fam, key
	x.rows[fam]++
	return cf, key, value, nil
}

// readValue reads n bytes, growing its buffer with the bytes that arrive
// rather than to n at once.
func (x *exportReader) readValue(n int) ([]byte, error) {
	const chunk = 1 << 20
	if n <= chunk {
		v := make([]byte, n)
		return v, readFull(x, v)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(x, int64(n))); err != nil {
		return nil, err
	}
	if buf.Len() < n {
		return nil, ErrTruncated
	}
	return buf.Bytes(), nil
}

// familyIndex returns the index of cf in the header, or -1.
func (x *exportReader) familyIndex(cf storage.ColumnFamily) int {
	for i, f := range x.header.Families {
		if f == cf {
			return i
		}
	}
	return -1
}

// trailer reads and checks the counts and the checksum after the end tag,
// and that nothing follows them.
func (x *exportReader) trailer() error {
	counts := make([]byte, 8*len(x.rows))
	if err := readFull(x, counts); err != nil {
		return fmt.Errorf("read export trailer: %w", err)
	}
	for i, n := range x.rows {
		if want := binary.BigEndian.Uint64(counts[8*i:]); n != want {
			return fmt.Errorf("read export trailer: %d rows of %s, trailer says %d: %w", n, x.header.Families[i], want, ErrCorruptFile)
		}
	}
	computed := x.sum.Sum(nil)
	var stored [checksumLen]byte
	if err := readFull(x.in, stored[:]); err != nil {
		return fmt.Errorf("read export checksum: %w", err)
	}
	x.n += checksumLen
	if !bytes.Equal(computed, stored[:]) {
		return fmt.Errorf("read export: checksum %x, file says %x: %w", computed, stored, ErrCorruptFile)
	}
	if _, err := x.in.ReadByte(); err != io.EOF {
		return fmt.Errorf("read export: bytes after the checksum at byte %d: %w", x.n, ErrCorruptFile)
	}
	return nil
}

// truncated reports an early end of the file as ErrTruncated.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

// varintError reports a uvarint that ends early or overflows.
func varintError(err error) error {
	if err = truncated(err); err == ErrTruncated {
		return err
	}
	return fmt.Errorf("%w: %w", ErrCorruptFile, err)
}
