package ledger

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"

	"telha.dev/core/storage"
)

// A ledger file is the ledger of a store, exported so that it outlives the
// store and its backups (`telha restore -ledger FILE`). Format, version 1:
//
//	"TELHA-LEDGER" [version 1]
//	entries x [value length 4][value]   (the value format of value.go,
//	                                     any version)
//	[0xFFFFFFFF][entry count 8][crc32c 4 of every byte before it]
//
// The trailer makes a file cut short, or with an entry dropped, fail to
// read (ErrBadEntry) rather than read as a shorter ledger: a restore that
// missed an entry would bring erased rows back.
const (
	fileMagic   = "TELHA-LEDGER"
	fileVersion = 1
	endMark     = math.MaxUint32
	// maxValueLen bounds one entry's value in a file.
	maxValueLen = headerLen + deploymentLen + math.MaxUint16*(2*maxBoundLen+22) + redactionLen + math.MaxUint16*rangeLen + maxPendingLen + checksumLen
)

// WriteFile writes the ledger of r to w as a ledger file, and returns the
// number of entries written.
func WriteFile(w io.Writer, r storage.Reader) (int, error) {
	bw := bufio.NewWriter(w)
	sum := crc32.New(castagnoli)
	out := io.MultiWriter(bw, sum)
	if _, err := io.WriteString(out, fileMagic+string(rune(fileVersion))); err != nil {
		return 0, fmt.Errorf("write ledger file: %w", err)
	}
	n := 0
	for en, err := range Entries(r) {
		if err != nil {
			return n, fmt.Errorf("write ledger file: %w", err)
		}
		v, err := encode(&en)
		if err != nil {
			return n, fmt.Errorf("write ledger file: entry %s: %w", en.ID, err)
		}
		if _, err := out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(v)))); err != nil {
			return n, fmt.Errorf("write ledger file: %w", err)
		}
		if _, err := out.Write(v); err != nil {
			return n, fmt.Errorf("write ledger file: %w", err)
		}
		n++
	}
	trailer := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, endMark), uint64(n))
	if _, err := out.Write(trailer); err != nil {
		return n, fmt.Errorf("write ledger file: %w", err)
	}
	if _, err := bw.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return n, fmt.Errorf("write ledger file: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("write ledger file: %w", err)
	}
	return n, nil
}

// ReadFile reads a ledger file written by WriteFile. Anything but a whole,
// intact file is ErrBadEntry.
func ReadFile(rd io.Reader) ([]Entry, error) {
	sum := crc32.New(castagnoli)
	fr := fileReader{r: io.TeeReader(bufio.NewReader(rd), sum), sum: sum}
	head := fr.take(len(fileMagic) + 1)
	switch {
	case fr.err != nil:
		return nil, fr.fail("header")
	case !bytes.Equal(head[:len(fileMagic)], []byte(fileMagic)):
		return nil, fmt.Errorf("read ledger file: %w: not a ledger file", ErrBadEntry)
	case head[len(fileMagic)] != fileVersion:
		return nil, fmt.Errorf("read ledger file: %w: version %d, want %d", ErrBadEntry, head[len(fileMagic)], fileVersion)
	}
	var out []Entry
	for {
		n := binary.BigEndian.Uint32(fr.take(4))
		if fr.err != nil {
			return nil, fr.fail(fmt.Sprintf("entry %d", len(out)))
		}
		if n == endMark {
			break
		}
		if n > maxValueLen {
			return nil, fmt.Errorf("read ledger file: entry %d: %w: %d bytes", len(out), ErrBadEntry, n)
		}
		v := fr.take(int(n))
		if fr.err != nil {
			return nil, fr.fail(fmt.Sprintf("entry %d", len(out)))
		}
		en, err := decode(v)
		if err != nil {
			return nil, fmt.Errorf("read ledger file: entry %d: %w", len(out), err)
		}
		out = append(out, en)
	}
	count := binary.BigEndian.Uint64(fr.take(8))
	want := fr.sum.Sum32()
	got := binary.BigEndian.Uint32(fr.take(4))
	switch {
	case fr.err != nil:
		return nil, fr.fail("trailer")
	case count != uint64(len(out)):
		return nil, fmt.Errorf("read ledger file: %w: %d entries, the trailer says %d", ErrBadEntry, len(out), count)
	case got != want:
		return nil, fmt.Errorf("read ledger file: %w: checksum %08x, want %08x", ErrBadEntry, got, want)
	}
	if extra, _ := fr.r.Read(make([]byte, 1)); extra != 0 {
		return nil, fmt.Errorf("read ledger file: %w: bytes after the trailer", ErrBadEntry)
	}
	return out, nil
}

// fileReader reads whole fields; the first short read sticks in err.
type fileReader struct {
	r   io.Reader
	sum hash.Hash32
	err error
}

func (f *fileReader) take(n int) []byte {
	b := make([]byte, n)
	if f.err == nil {
		_, f.err = io.ReadFull(f.r, b)
	}
	return b
}

// fail reports the read error of what, a short file as ErrBadEntry.
func (f *fileReader) fail(what string) error {
	if errors.Is(f.err, io.EOF) || errors.Is(f.err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("read ledger file: %s: %w: the file is cut short", what, ErrBadEntry)
	}
	return fmt.Errorf("read ledger file: %s: %w", what, f.err)
}
