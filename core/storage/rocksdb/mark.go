package rocksdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The sync mark is how Open notices acknowledged writes missing from the end
// of the write-ahead log, which RocksDB cannot: a log cut short, or ending
// in a damaged record, reads like the torn tail that a crash leaves, and
// RocksDB recovers what precedes it without a word.
//
// After every write that syncs the log, the engine records in the file
// markFile a sequence number that the write made durable. After RocksDB has
// recovered the store, Open compares its last sequence number with the
// mark: a store that recovers to less than the mark has lost acknowledged
// writes, and Open refuses it with a *CorruptError.
//
// The mark is a lower bound of what is durable, never more: it is the last
// sequence number published before the write plus the write's own count.
// Every write published before it precedes it in the log, and the sync that
// acknowledges it covers them all. So a power loss can never make the mark
// claim more than the log holds. The file is written in place, without a
// sync of its own: after a crash (the process killed) it holds what was
// written; after a power loss it may hold an older mark, which only weakens
// the check. Two slots, written in turn, keep one whole mark if a write of
// the file is torn.
const markFile = "TELHA-SYNCED"

const (
	markMagic   = "TSM1"
	markSlotLen = 16   // magic 4, sequence 8, CRC-32C of both 4
	markStride  = 4096 // the second slot lives in another page
	markFileLen = markStride + markSlotLen
)

var markCRC = crc32.MakeTable(crc32.Castagnoli)

// syncMark is the open mark file of an engine. A nil *syncMark (a read-only
// use of a store) records nothing.
type syncMark struct {
	mu   sync.Mutex
	f    *os.File
	seq  uint64 // the mark on disk
	slot int    // the slot the next write goes to
	buf  [markSlotLen]byte
}

// readMark returns the mark recorded in the store at path, and false if the
// store has no mark file (a store created before the mark existed, a
// checkpoint, or one just repaired). A mark file with no valid slot is
// damaged: the result is a *CorruptError.
func readMark(path string) (seq uint64, ok bool, err error) {
	name := filepath.Join(path, markFile)
	data, err := os.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("read sync mark: %w", err)
	}
	found := false
	for off := 0; off+markSlotLen <= len(data); off += markStride {
		if s, valid := decodeMarkSlot(data[off : off+markSlotLen]); valid && (!found || s > seq) {
			seq, found = s, true
		}
	}
	if !found {
		return 0, false, &CorruptError{File: name, Offset: -1, Reason: "no valid sync mark slot"}
	}
	return seq, true, nil
}

func decodeMarkSlot(b []byte) (uint64, bool) {
	if string(b[:4]) != markMagic || crc32.Checksum(b[:12], markCRC) != binary.LittleEndian.Uint32(b[12:]) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[4:12]), true
}

// encodeMarkSlot writes the slot of seq into b, markSlotLen bytes.
func encodeMarkSlot(b []byte, seq uint64) {
	copy(b, markMagic)
	binary.LittleEndian.PutUint64(b[4:], seq)
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(b[:12], markCRC))
}

// openMark writes a new mark file at path holding seq in both slots, synced,
// and opens it for the engine's writes. The file is written whole first, so
// that later writes replace bytes in place and never need new space on the
// device.
func openMark(path string, seq uint64) (*syncMark, error) {
	name := filepath.Join(path, markFile)
	tmp := name + ".tmp"
	data := make([]byte, markFileLen)
	encodeMarkSlot(data, seq)
	encodeMarkSlot(data[markStride:], seq)
	if err := writeSynced(tmp, data); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("write sync mark: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("write sync mark: %w", err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open sync mark: %w", err)
	}
	return &syncMark{f: f, seq: seq}, nil
}

// writeSynced writes data to a new file name and syncs it.
func writeSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// advance records seq if it is above the mark. A failed write of the file
// is not the write's failure (the data is durable); it leaves the older
// mark, which only weakens the next Open's check.
func (m *syncMark) advance(seq uint64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if seq <= m.seq {
		return
	}
	encodeMarkSlot(m.buf[:], seq)
	if _, err := m.f.WriteAt(m.buf[:], int64(m.slot*markStride)); err != nil {
		return
	}
	m.seq, m.slot = seq, 1-m.slot
}

func (m *syncMark) close() {
	if m != nil {
		_ = m.f.Close()
	}
}
