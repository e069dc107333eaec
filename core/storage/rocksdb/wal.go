package rocksdb

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// This file reads RocksDB's write-ahead log files the way recovery will,
// before RocksDB does, so that Open can refuse damage with the file and
// offset at fault, and Repair can say what it drops. RocksDB's own
// tolerant recovery (kTolerateCorruptedTailRecords) refuses a bad checksum
// but not everything: it skips a block that starts with zeros and accepts
// logs whose batches leave a gap in the sequence numbers, and its error
// names no file.
//
// The format, RocksDB 7.8's db/log_format.h: the file is a sequence of
// 32 KiB blocks, each a sequence of physical records, and a block's last
// bytes, too few for a header, are zero padding. A physical record is a
// header, CRC-32C of the type and payload (masked, 4 bytes little-endian),
// the payload length (2 bytes little-endian) and the type (1 byte), then
// the payload. A logical record (one write batch) is one full record or a
// first, middles and a last. A write batch starts with its first sequence
// number (8 bytes) and its count of operations (4 bytes), both
// little-endian; it uses that many sequence numbers.
const (
	walBlockLen    = 32 << 10
	walHeaderLen   = 7
	walBatchHeader = 12
)

// Physical record types.
const (
	walZeroType   = 0 // preallocated or zeroed space
	walFullType   = 1
	walFirstType  = 2
	walMiddleType = 3
	walLastType   = 4
)

var walCRC = crc32.MakeTable(crc32.Castagnoli)

// walMaskDelta is RocksDB's crc32c mask constant: stored checksums are
// rotated and offset so that a checksum of data holding checksums differs.
const walMaskDelta = 0xa282ead8

func unmaskCRC(masked uint32) uint32 {
	rot := masked - walMaskDelta
	return rot>>17 | rot<<15
}

// walLog is what a scan found in one log file.
type walLog struct {
	path   string
	number uint64
	// seqs are the first sequence numbers of the whole, valid batches
	// before any damage, in order; next is one past the last one's
	// sequence numbers (0 if none).
	seqs []uint64
	next uint64
	// torn is the offset of an incomplete record that ends the file, the
	// mark of a write cut short by a crash; -1 if the file ends cleanly.
	torn int64
	// damage is the first damage that is not a torn tail; nil if none.
	// badRecord says it is a record that cannot be read (rather than a gap
	// or a zeroed stretch), which held a batch.
	damage    *CorruptError
	badRecord bool
	// lostSeqs are the first sequence numbers of the valid batches after
	// the damage, which recovery does not replay; lostNext is one past the
	// highest sequence number among them.
	lostSeqs []uint64
	lostNext uint64
}

// first returns the first sequence number of the log's first batch.
func (l *walLog) first() uint64 { return l.seqs[0] }

// last returns the last sequence number of the log's batches, valid or
// lost, or 0 if it has none.
func (l *walLog) last() uint64 {
	if n := max(l.next, l.lostNext); n > 0 {
		return n - 1
	}
	return 0
}

// listLogs returns the write-ahead log files of the store at path, oldest
// first; a log that is not a regular file (a FIFO, a link) is a
// *CorruptError.
func listLogs(path string) ([]walLog, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var logs []walLog
	for _, de := range entries {
		num, ok := strings.CutSuffix(de.Name(), ".log")
		if !ok || de.IsDir() {
			continue
		}
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			continue
		}
		name := filepath.Join(path, de.Name())
		if !de.Type().IsRegular() {
			// Opening a FIFO to read it would block: a log that is not a
			// regular file is damage, found without opening it.
			return nil, &CorruptError{File: name, Offset: -1, Reason: fmt.Sprintf("a write-ahead log that is not a regular file (%s)", de.Type())}
		}
		logs = append(logs, walLog{path: name, number: n, torn: -1})
	}
	slices.SortFunc(logs, func(a, b walLog) int { return cmp.Compare(a.number, b.number) })
	return logs, nil
}

// scanLogs reads every log file of the store at path.
func scanLogs(path string) ([]walLog, error) {
	logs, err := listLogs(path)
	if err != nil {
		return nil, fmt.Errorf("list write-ahead logs: %w", err)
	}
	for i := range logs {
		// A log that another process, holding the store, retired since
		// the listing is no longer part of it.
		if err := logs[i].scan(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read write-ahead log %s: %w", logs[i].path, err)
		}
	}
	return logs, nil
}

// checkLogs returns the first damage of logs that recovery would not
// report, or replay around: damage within a file, and a torn record in a
// log that a later log continues past (a crash ends the process, so a torn
// record is the last thing written; a later log that does not start where
// the torn one stops proves the record was once whole).
func checkLogs(logs []walLog) error {
	var prev *walLog
	for i := range logs {
		l := &logs[i]
		if l.damage != nil {
			return l.damage
		}
		if len(l.seqs) == 0 {
			continue
		}
		if prev != nil && prev.torn >= 0 && l.first() != prev.next {
			return &CorruptError{File: prev.path, Offset: prev.torn, Reason: fmt.Sprintf(
				"the log ends in a torn record, but the next log, %s, starts at sequence %d, not %d: records were lost after sequence %d",
				filepath.Base(l.path), l.first(), prev.next, prev.next-1)}
		}
		prev = l
	}
	return nil
}

// lastWithBatches returns the newest log that holds a batch, or nil.
func lastWithBatches(logs []walLog) *walLog {
	for i := len(logs) - 1; i >= 0; i-- {
		if len(logs[i].seqs) > 0 {
			return &logs[i]
		}
	}
	return nil
}

// firstWithBatches returns the oldest log that holds a batch, or nil.
func firstWithBatches(logs []walLog) *walLog {
	for i := range logs {
		if len(logs[i].seqs) > 0 {
			return &logs[i]
		}
	}
	return nil
}

// walScanner walks the physical records of one file.
type walScanner struct {
	log  *walLog
	frag []byte // the logical record being assembled
	// fragAt is the offset of the record that began frag, -1 if none.
	fragAt int64
	// zeroAt is the offset of a zeroed region that began where a header
	// was due; damage if a record follows it, -1 if none.
	zeroAt int64
	// stopped is set once damage or a torn record is found: later records
	// are only counted as lost.
	stopped bool
	// emit, when set, receives every whole, valid write batch, before the
	// damage and after it, in file order; its first error stops nothing
	// but is kept in emitErr.
	emit    func(batch []byte) error
	emitErr error
}

// scan reads the file, filling in l.
func (l *walLog) scan() error { return l.scanWith(nil) }

// scanWith reads the file, filling in l, and hands every whole, valid
// write batch to emit if it is not nil.
func (l *walLog) scanWith(emit func(batch []byte) error) error {
	f, err := os.Open(l.path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := walScanner{log: l, fragAt: -1, zeroAt: -1, emit: emit}
	if err := s.blocks(f); err != nil {
		return err
	}
	return s.emitErr
}

// blocks walks the blocks of f.
func (s *walScanner) blocks(f io.Reader) error {
	l := s.log
	block := make([]byte, walBlockLen)
	for pos := int64(0); ; pos += walBlockLen {
		n, err := io.ReadFull(f, block)
		if n > 0 {
			s.block(pos, block[:n], n < walBlockLen)
		}
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			if s.fragAt >= 0 && !s.stopped {
				l.torn = s.fragAt // the file ends inside a fragmented record
			}
			return nil
		case err != nil:
			return err
		}
	}
}

// block walks one block, at file offset pos; last says the file ends in it.
func (s *walScanner) block(pos int64, b []byte, last bool) {
	for off := 0; off < len(b); {
		rest := b[off:]
		at := pos + int64(off)
		if len(rest) < walHeaderLen {
			if last && !allZero(rest) {
				s.tear(at) // a header cut short by the end of the file
			}
			return // otherwise block padding
		}
		length := int(binary.LittleEndian.Uint16(rest[4:6]))
		typ := rest[6]
		if typ == walZeroType && length == 0 {
			// Zeros where a header is due: preallocated space, which is
			// harmless at the end of the file, and a hole before a record.
			// RocksDB skips the rest of the block.
			if s.zeroAt < 0 {
				s.zeroAt = at
			}
			return
		}
		if walHeaderLen+length > len(rest) {
			if last {
				s.tear(at) // a record cut short by the end of the file
			} else {
				s.damage(at, fmt.Sprintf("record length %d overruns its block", length), true)
			}
			return
		}
		payload := rest[walHeaderLen : walHeaderLen+length]
		if crc32.Checksum(rest[6:walHeaderLen+length], walCRC) != unmaskCRC(binary.LittleEndian.Uint32(rest[0:4])) {
			// RocksDB drops the rest of the block: its length may be wrong.
			s.damage(at, "checksum mismatch", true)
			return
		}
		if s.zeroAt >= 0 {
			s.damage(s.zeroAt, "zeroed bytes before a valid record", false)
			s.zeroAt = -1
		}
		s.record(at, typ, payload)
		off += walHeaderLen + length
	}
}

// record assembles the physical record of type typ at offset at.
func (s *walScanner) record(at int64, typ byte, payload []byte) {
	switch typ {
	case walFullType:
		if s.fragAt >= 0 {
			s.damage(s.fragAt, "fragmented record without its last part", true)
		}
		s.batch(at, payload)
	case walFirstType:
		if s.fragAt >= 0 {
			s.damage(s.fragAt, "fragmented record without its last part", true)
		}
		s.frag, s.fragAt = append(s.frag[:0], payload...), at
	case walMiddleType, walLastType:
		if s.fragAt < 0 {
			s.damage(at, "fragment without its first part", true)
			return
		}
		s.frag = append(s.frag, payload...)
		if typ == walLastType {
			start := s.fragAt
			s.fragAt = -1
			s.batch(start, s.frag)
		}
	default:
		// Recycled logs (5-8) and compressed logs (9) are options this
		// engine never sets.
		s.damage(at, fmt.Sprintf("record type %d, which this engine never writes", typ), true)
	}
}

// batch takes the write batch of the logical record at offset at.
func (s *walScanner) batch(at int64, b []byte) {
	if len(b) < walBatchHeader {
		s.damage(at, fmt.Sprintf("write batch of %d bytes", len(b)), true)
		return
	}
	seq := binary.LittleEndian.Uint64(b[0:8])
	next := seq + uint64(binary.LittleEndian.Uint32(b[8:12]))
	if s.emit != nil && s.emitErr == nil {
		s.emitErr = s.emit(b)
	}
	l := s.log
	if !s.stopped && len(l.seqs) > 0 && seq != l.next {
		s.damage(at, fmt.Sprintf("batch at sequence %d follows one that ends before %d: records are missing", seq, l.next), false)
	}
	if s.stopped {
		l.lostSeqs = append(l.lostSeqs, seq)
		l.lostNext = max(l.lostNext, next)
		return
	}
	l.seqs = append(l.seqs, seq)
	l.next = next
}

// damage records the first damage and stops the log there; badRecord says
// the damage is a record that cannot be read.
func (s *walScanner) damage(at int64, reason string, badRecord bool) {
	if !s.stopped {
		s.log.damage = &CorruptError{File: s.log.path, Offset: at, Reason: reason}
		s.log.badRecord = badRecord
		s.stopped = true
	}
	s.fragAt = -1
}

// tear records a torn record at offset at, which ends the file.
func (s *walScanner) tear(at int64) {
	if !s.stopped {
		s.log.torn = at
		s.stopped = true
	}
	s.fragAt = -1
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
