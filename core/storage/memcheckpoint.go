package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"telha.dev/core/durable"
)

// This file is the memory engine's checkpoint: its file format, written by
// MemoryEngine.Checkpoint and read by OpenMemoryCheckpoint. The engine
// itself is in memory.go.

// Checkpoint errors. OpenMemoryCheckpoint wraps them with the path and what
// was wrong; test with errors.Is.
var (
	// ErrNotCheckpoint reports a directory without a memory checkpoint file,
	// or a file that does not start with the checkpoint magic.
	ErrNotCheckpoint = errors.New("not a memory engine checkpoint")
	// ErrCheckpointVersion reports a checkpoint of a format version this
	// build does not read.
	ErrCheckpointVersion = errors.New("unsupported memory checkpoint version")
	// ErrCheckpointCorrupt reports a checkpoint whose checksum or structure
	// is wrong: truncated, bit-flipped, rows out of order, or a row whose
	// key does not decode. It wraps ErrCorrupt.
	ErrCheckpointCorrupt = fmt.Errorf("corrupt memory checkpoint: %w", ErrCorrupt)
)

// The checkpoint file, version 1. All integers are big-endian:
//
//	magic    8 bytes  "TELHAMEM"
//	version  uint32   1
//	count    uint64   number of rows
//	rows     count times:
//	           family    uint8   a ColumnFamily
//	           keyLen    uint32
//	           key       keyLen bytes
//	           valueLen  uint32
//	           value     valueLen bytes
//	checksum uint32   CRC-32C (Castagnoli) of every byte before it
//
// Rows are in family order, then in strictly ascending key order. The
// version is read before the checksum, so that a later version may change
// everything after it.
const (
	checkpointFile             = "memory.checkpoint"
	checkpointMagic            = "TELHAMEM"
	checkpointVersion   uint32 = 1
	checkpointHeaderLen        = len(checkpointMagic) + 4 + 8
	checkpointSumLen           = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checkpoint writes the engine's rows as of now to a new directory dir. The
// file is written under a temporary name, synced, renamed into place and
// its directory synced, so dir never holds a partial checkpoint file; on
// failure dir is removed.
func (e *MemoryEngine) Checkpoint(dir string) (err error) {
	if e == nil {
		return fmt.Errorf("memory engine: checkpoint %s: %w", dir, ErrNotOpen)
	}
	e.mu.RLock()
	closed, tables := e.closed.Load(), e.tables
	e.mu.RUnlock()
	if closed {
		return fmt.Errorf("memory engine: checkpoint %s: %w", dir, ErrClosed)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("memory engine: checkpoint: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
			err = fmt.Errorf("memory engine: checkpoint %s: %w", dir, err)
		}
	}()
	// The file is temporary until renamed, so dir never holds a partial
	// checkpoint file; CreateTemp's mode, 0600, is kept.
	path := filepath.Join(dir, checkpointFile)
	if err := durable.Write(path, 0o600, func(w io.Writer) error { return writeCheckpoint(w, &tables) }); err != nil {
		return err
	}
	return durable.Sync(filepath.Dir(dir))
}

// writeCheckpoint writes the version 1 format to w.
func writeCheckpoint(f io.Writer, tables *memTables) error {
	sum := crc32.New(castagnoli)
	w := bufio.NewWriter(io.MultiWriter(f, sum))
	var count uint64
	for _, rows := range tables {
		count += uint64(len(rows))
	}
	var scratch [8]byte
	_, _ = w.WriteString(checkpointMagic)
	_, _ = w.Write(binary.BigEndian.AppendUint32(scratch[:0], checkpointVersion))
	_, _ = w.Write(binary.BigEndian.AppendUint64(scratch[:0], count))
	for cf, rows := range tables {
		for _, row := range rows {
			_ = w.WriteByte(byte(cf))
			_, _ = w.Write(binary.BigEndian.AppendUint32(scratch[:0], uint32(len(row.key))))
			_, _ = w.Write(row.key)
			_, _ = w.Write(binary.BigEndian.AppendUint32(scratch[:0], uint32(len(row.value))))
			_, _ = w.Write(row.value)
		}
	}
	// bufio.Writer keeps its first error and returns it from Flush.
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := f.Write(binary.BigEndian.AppendUint32(scratch[:0], sum.Sum32()))
	return err
}

// OpenMemoryCheckpoint loads a directory written by MemoryEngine.Checkpoint
// as a new, writable engine. A bad directory or file yields an error
// wrapping ErrNotCheckpoint, ErrCheckpointVersion or ErrCheckpointCorrupt.
func OpenMemoryCheckpoint(dir string) (*MemoryEngine, error) {
	path := filepath.Join(dir, checkpointFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open memory checkpoint: %w: %w", ErrNotCheckpoint, err)
	}
	tables, err := parseCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("open memory checkpoint %s: %w", path, err)
	}
	return &MemoryEngine{tables: tables}, nil
}

// parseCheckpoint decodes the version 1 format. The rows alias data, which
// the engine never modifies.
func parseCheckpoint(data []byte) (memTables, error) {
	var tables memTables
	if !bytes.HasPrefix(data, []byte(checkpointMagic)) {
		return tables, ErrNotCheckpoint
	}
	if len(data) < checkpointHeaderLen+checkpointSumLen {
		return tables, fmt.Errorf("%w: %d bytes is shorter than header and checksum", ErrCheckpointCorrupt, len(data))
	}
	if v := binary.BigEndian.Uint32(data[len(checkpointMagic):]); v != checkpointVersion {
		return tables, fmt.Errorf("%w: version %d, want %d", ErrCheckpointVersion, v, checkpointVersion)
	}
	body := data[:len(data)-checkpointSumLen]
	if got, want := crc32.Checksum(body, castagnoli), binary.BigEndian.Uint32(data[len(body):]); got != want {
		return tables, fmt.Errorf("%w: checksum %08x, file says %08x", ErrCheckpointCorrupt, got, want)
	}
	count := binary.BigEndian.Uint64(body[len(checkpointMagic)+4:])
	rest := body[checkpointHeaderLen:]
	var prev struct {
		cf  ColumnFamily
		key []byte
	}
	for i := range count {
		if len(rest) == 0 {
			return tables, fmt.Errorf("%w: row %d of %d missing", ErrCheckpointCorrupt, i, count)
		}
		cf := ColumnFamily(rest[0])
		key, rest1, ok := lengthPrefixed(rest[1:])
		value, rest2, ok2 := lengthPrefixed(rest1)
		switch {
		case !ok || !ok2:
			return tables, fmt.Errorf("%w: row %d truncated", ErrCheckpointCorrupt, i)
		case !cf.Valid():
			return tables, fmt.Errorf("%w: row %d: %w %d", ErrCheckpointCorrupt, i, ErrUnknownFamily, uint8(cf))
		case cf < prev.cf || cf == prev.cf && bytes.Compare(key, prev.key) <= 0:
			return tables, fmt.Errorf("%w: row %d out of order", ErrCheckpointCorrupt, i)
		}
		if err := CheckKeyBytes(cf, key); err != nil {
			return tables, fmt.Errorf("%w: row %d (%s %x): %w", ErrCheckpointCorrupt, i, cf, key, err)
		}
		if len(value) > MaxValueLen {
			return tables, fmt.Errorf("%w: row %d: value of %d bytes: %w", ErrCheckpointCorrupt, i, len(value), ErrValueTooLarge)
		}
		tables[cf] = append(tables[cf], memRow{key: key, value: value})
		prev.cf, prev.key, rest = cf, key, rest2
	}
	if len(rest) != 0 {
		return tables, fmt.Errorf("%w: %d bytes after the last row", ErrCheckpointCorrupt, len(rest))
	}
	return tables, nil
}

// lengthPrefixed splits a uint32 length and that many bytes off b.
func lengthPrefixed(b []byte) (field, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n : 4+n], b[4+n:], true
}
