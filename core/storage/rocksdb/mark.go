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

	"telha.dev/core/durable"
)

// The sync mark is how Open notices acknowledged writes missing from a
// store, which RocksDB cannot: a write-ahead log cut short, or ending in a
// damaged record, reads like the torn tail that a crash leaves, and a
// MANIFEST cut short reads like an older one; RocksDB recovers what
// precedes the damage without a word.
//
// After every write that syncs the log, the engine records in the file
// markFile a sequence number that the write made durable. Open compares
// the last sequence number RocksDB recovers with the mark: a store that
// recovers to less has lost acknowledged writes, and Open refuses it with a
// *CorruptError.
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
//
// Checking the mark takes a read-only open of the store, as costly as the
// open itself. A clean Close spares the next Open that cost: after flushing
// every memtable and closing RocksDB, it seals the file with the name and
// size of the store's MANIFEST. A store whose MANIFEST is still that one, at
// that size, and whose logs hold no batch, is the store that was closed;
// RocksDB's own checksums and file checks cover the rest. Every Open
// rewrites the file unsealed.
const markFile = "TELHA-SYNCED"

const (
	markMagic   = "TSM1"
	markSlotLen = 16   // magic 4, sequence 8, CRC-32C of both 4
	markStride  = 4096 // each slot, and the seal, lives in its own page
	sealMagic   = "TSL1"
	sealOffset  = 2 * markStride
	// The seal: magic 4, MANIFEST size 8, name length 1, name up to
	// sealNameMax, CRC-32C of all before it 4.
	sealNameMax = 64
	sealLen     = 4 + 8 + 1 + sealNameMax + 4
	markFileLen = sealOffset + sealLen
)

var markCRC = crc32.MakeTable(crc32.Castagnoli)

// markState is what a store's mark file says.
type markState struct {
	seq    uint64 // the mark
	marked bool   // the store has a mark file
	// The seal of a clean Close: the MANIFEST's name and size then.
	sealed       bool
	manifest     string
	manifestSize int64
}

// unchanged reports whether the store at path is as its clean Close left
// it: the seal names the MANIFEST that CURRENT names, at the size it has,
// and logs hold no batch.
func (ms markState) unchanged(path string, logs []walLog) bool {
	if !ms.sealed || lastWithBatches(logs) != nil {
		return false
	}
	name := currentManifest(path)
	info, err := os.Stat(name)
	return err == nil && filepath.Base(name) == ms.manifest && info.Size() == ms.manifestSize
}

// readMark returns what the mark file of the store at path says; marked is
// false if the store has none (a store created before the mark existed, a
// checkpoint). A mark file with no valid slot is damaged: the result is a
// *CorruptError.
func readMark(path string) (markState, error) {
	var ms markState
	name := filepath.Join(path, markFile)
	data, err := os.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ms, nil
	case err != nil:
		return ms, fmt.Errorf("read sync mark: %w", err)
	}
	for off := 0; off+markSlotLen <= len(data) && off < sealOffset; off += markStride {
		if seq, valid := decodeMarkSlot(data[off : off+markSlotLen]); valid && (!ms.marked || seq > ms.seq) {
			ms.seq, ms.marked = seq, true
		}
	}
	if !ms.marked {
		return ms, &CorruptError{File: name, Offset: -1, Reason: "no valid sync mark slot"}
	}
	if len(data) >= markFileLen {
		ms.manifest, ms.manifestSize, ms.sealed = decodeSeal(data[sealOffset:markFileLen])
	}
	return ms, nil
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

func decodeSeal(b []byte) (manifest string, size int64, ok bool) {
	n := int(b[12])
	if string(b[:4]) != sealMagic || n > sealNameMax ||
		crc32.Checksum(b[:sealLen-4], markCRC) != binary.LittleEndian.Uint32(b[sealLen-4:]) {
		return "", 0, false
	}
	return string(b[13 : 13+n]), int64(binary.LittleEndian.Uint64(b[4:12])), true
}

// encodeSeal returns the seal of a MANIFEST, or false if its name does not
// fit.
func encodeSeal(manifest string, size int64) ([]byte, bool) {
	if len(manifest) > sealNameMax {
		return nil, false
	}
	b := make([]byte, sealLen)
	copy(b, sealMagic)
	binary.LittleEndian.PutUint64(b[4:], uint64(size))
	b[12] = byte(len(manifest))
	copy(b[13:], manifest)
	binary.LittleEndian.PutUint32(b[sealLen-4:], crc32.Checksum(b[:sealLen-4], markCRC))
	return b, true
}

// syncMark is the open mark file of an engine.
type syncMark struct {
	mu   sync.Mutex
	f    *os.File
	seq  uint64 // the mark on disk
	slot int    // the slot the next write goes to
	buf  [markSlotLen]byte
}

// openMark writes a new, unsealed mark file at path holding seq in both
// slots, synced, and opens it for the engine's writes. The file is written
// whole first, so that later writes replace bytes in place and never need
// new space on the device.
func openMark(path string, seq uint64) (*syncMark, error) {
	name := filepath.Join(path, markFile)
	data := make([]byte, markFileLen)
	encodeMarkSlot(data, seq)
	encodeMarkSlot(data[markStride:], seq)
	if err := durable.WriteFile(name, data, 0o644); err != nil {
		return nil, fmt.Errorf("write sync mark: %w", err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open sync mark: %w", err)
	}
	return &syncMark{f: f, seq: seq}, nil
}

// advance records seq if it is above the mark. A failed write of the file
// is not the write's failure (the data is durable); it leaves the older
// mark, which only weakens the next Open's check.
func (m *syncMark) advance(seq uint64) {
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

// close seals the file with the store's MANIFEST if sealed (a clean Close,
// after RocksDB closed), syncs it and closes it. A seal that cannot be
// written only costs the next Open its read-only check.
func (m *syncMark) close(path string, sealed bool) {
	if sealed {
		manifest := currentManifest(path)
		if info, err := os.Stat(manifest); err == nil {
			if seal, ok := encodeSeal(filepath.Base(manifest), info.Size()); ok {
				_, _ = m.f.WriteAt(seal, sealOffset)
			}
		}
	}
	_ = m.f.Sync()
	_ = m.f.Close()
}
