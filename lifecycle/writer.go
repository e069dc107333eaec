package lifecycle

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"io"

	"telha.dev/core/storage"
)

// exportWriter writes an export: the header, then rows, then the trailer,
// summing every byte as it goes.
type exportWriter struct {
	out  *bufio.Writer
	sum  hash.Hash
	n    int64
	fams []storage.ColumnFamily
	rows []uint64 // per family of the header
	buf  []byte
}

func newExportWriter(w io.Writer, h Header) (*exportWriter, error) {
	x := &exportWriter{out: bufio.NewWriterSize(w, 256<<10), sum: newSum(), fams: h.Families, rows: make([]uint64, len(h.Families))}
	return x, x.write(appendHeader(nil, h))
}

// write writes b to the file and the checksum.
func (x *exportWriter) write(b []byte) error {
	_, _ = x.sum.Write(b)
	n, err := x.out.Write(b)
	x.n += int64(n)
	if err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	return nil
}

// row writes one row of the family at index fam of the header.
func (x *exportWriter) row(fam int, kv storage.KV) error {
	x.buf = append(x.buf[:0], tagRow, byte(x.fams[fam]))
	x.buf = binary.AppendUvarint(x.buf, uint64(len(kv.Key)))
	x.buf = binary.AppendUvarint(x.buf, uint64(len(kv.Value)))
	x.buf = append(x.buf, kv.Key...)
	if err := x.write(x.buf); err != nil {
		return err
	}
	x.rows[fam]++
	return x.write(kv.Value)
}

// finish writes the end tag and the trailer, and flushes.
func (x *exportWriter) finish() error {
	x.buf = append(x.buf[:0], tagEnd)
	for _, n := range x.rows {
		x.buf = binary.BigEndian.AppendUint64(x.buf, n)
	}
	if err := x.write(x.buf); err != nil {
		return err
	}
	sum := x.sum.Sum(nil)
	n, err := x.out.Write(sum)
	x.n += int64(n)
	if err == nil {
		err = x.out.Flush()
	}
	if err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	return nil
}
