package rocksdb

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// A damaged write-ahead log that table files have outrun cannot be cut back
// to the point of its damage (see Repair), and RocksDB's own recovery that
// skips damaged records (kSkipAnyCorruptedRecords) is no way around it in
// 7.8: a record it stitches together from fragments on both sides of a
// damaged stretch passes the log's checksums and fails the batch's, and the
// open fails. Repair therefore writes the log again itself, holding exactly
// the whole, valid batches that the scan of wal.go found, before and after
// the damage, in order, and sets the damaged file aside. RocksDB then
// replays a log without damage; the batches in the damaged stretch are the
// ones dropped.

// maskCRC is RocksDB's crc32c mask (util/crc32c.h), the inverse of
// unmaskCRC.
func maskCRC(crc uint32) uint32 { return (crc>>15 | crc<<17) + walMaskDelta }

// walWriter writes logical records in RocksDB's log format (db/log_writer.cc
// of 7.8, without recycling or compression): 32 KiB blocks, each record
// split into fragments that never cross a block, a block's last bytes that
// cannot hold a header padded with zeros.
type walWriter struct {
	w   io.Writer
	off int // offset in the current block
}

// write appends one logical record.
func (w *walWriter) write(record []byte) error {
	first := true
	for {
		if left := walBlockLen - w.off; left < walHeaderLen {
			if _, err := w.w.Write(make([]byte, left)); err != nil {
				return err
			}
			w.off = 0
		}
		n := min(len(record), walBlockLen-w.off-walHeaderLen)
		last := n == len(record)
		typ := byte(walMiddleType)
		switch {
		case first && last:
			typ = walFullType
		case first:
			typ = walFirstType
		case last:
			typ = walLastType
		}
		var header [walHeaderLen]byte
		crc := crc32.Update(crc32.Checksum([]byte{typ}, walCRC), walCRC, record[:n])
		binary.LittleEndian.PutUint32(header[0:4], maskCRC(crc))
		binary.LittleEndian.PutUint16(header[4:6], uint16(n))
		header[6] = typ
		if _, err := w.w.Write(header[:]); err != nil {
			return err
		}
		if _, err := w.w.Write(record[:n]); err != nil {
			return err
		}
		w.off += walHeaderLen + n
		record, first = record[n:], false
		if last {
			return nil
		}
	}
}

// rewriteLog replaces the damaged log l with one that holds its whole,
// valid batches alone, and moves the damaged file into lost (created if
// missing). The new file is written beside the old one and synced, the old
// one linked into lost, and the new one renamed over it.
func rewriteLog(l *walLog, lost string) error {
	tmp := l.path + ".rewrite"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", l.path, err)
	}
	bw := bufio.NewWriter(f)
	w := walWriter{w: bw}
	var scanned walLog
	scanned.path, scanned.torn = l.path, -1
	err = scanned.scanWith(w.write)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.MkdirAll(lost, 0o755)
	}
	if err == nil {
		err = os.Link(l.path, filepath.Join(lost, filepath.Base(l.path)))
	}
	if err == nil {
		err = os.Rename(tmp, l.path) // replaces the damaged file at once
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rewrite %s without its damaged records: %w", l.path, err)
	}
	return nil
}
