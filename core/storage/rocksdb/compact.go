package rocksdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// CompactRanges makes the deletion of the rows of rs physical
// (storage.Compactor):
//
//  1. every family's memtable is flushed, so that no row deleted before the
//     call lives on only in a write-ahead log file: the files that recorded
//     such rows become obsolete, and RocksDB deletes them (the engine never
//     recycles or archives log files);
//  2. each range is compacted with the bottommost level compaction forced,
//     so that every table file holding one of its rows or its range
//     tombstone is rewritten without them, down to the last level, where a
//     tombstone is dropped with what it covers;
//  3. the engine waits until RocksDB has deleted every log file that
//     existed before the flush (but the one it still writes, if the flush
//     had nothing to write and it holds no row, and empty ones) and every
//     table file that is no longer live
//     (it purges obsolete files in the background, after the flush and
//     compaction report done), and returns storage.ErrCompactIncomplete
//     naming the files if that takes longer than compactPurgeTimeout.
//
// An open snapshot or a scan in progress pins the rows it can see: a
// compaction under one could not drop them, so it is refused with
// storage.ErrCompactIncomplete before anything is done. Writes may go on.
//
// Not covered: the MANIFEST keeps, until RocksDB starts a new one (at every
// open), the smallest and largest key of each table file it ever listed;
// for a table file bounded by a deleted row that is the row's key (its
// scope and ids, never its value).
func (e *Engine) CompactRanges(rs []storage.ScanRange) error {
	for _, r := range rs {
		if !r.Valid() {
			return fmt.Errorf("compact: %w", storage.ErrInvalidRange)
		}
	}
	if err := e.enterWrite(); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	defer e.mu.RUnlock()
	if n := e.pins(); n > 0 {
		return fmt.Errorf("compact %s: %d open snapshots or scans pin deleted rows: %w", e.path, n, storage.ErrCompactIncomplete)
	}
	before, err := listLogs(e.path)
	if err != nil {
		return fmt.Errorf("compact %s: list write-ahead logs: %w", e.path, err)
	}
	if err := flushAll(e.db, e.handles); err != nil {
		return fmt.Errorf("compact %s: flush: %w", e.path, classify(err))
	}
	after, err := listLogs(e.path)
	if err != nil {
		return fmt.Errorf("compact %s: list write-ahead logs: %w", e.path, err)
	}
	// The newest log is the one RocksDB writes to. If it was there before
	// the flush, every memtable was empty: it holds no row. An empty log
	// (RocksDB keeps the one it recovered from an orderly Close until a
	// later flush) holds no byte at all.
	current := uint64(0)
	if len(after) > 0 {
		current = after[len(after)-1].number
	}
	before = slices.DeleteFunc(before, func(l walLog) bool {
		fi, err := os.Stat(l.path)
		return l.number >= current || err == nil && fi.Size() == 0
	})
	opts := grocksdb.NewCompactRangeOptions()
	defer opts.Destroy()
	opts.SetBottommostLevelCompaction(grocksdb.KForce)
	opts.SetExclusiveManualCompaction(false)
	for _, r := range rs {
		if lower, upper, ok := rangeEnds(&r); ok {
			e.db.CompactRangeCFOpt(e.families[r.Family()], grocksdb.Range{Start: lower, Limit: upper}, opts)
		}
	}
	if err := e.awaitPurge(before); err != nil {
		return fmt.Errorf("compact %s: %w", e.path, err)
	}
	return nil
}

// pins returns the number of open snapshots and scans in progress.
func (e *Engine) pins() int {
	e.live.Lock()
	defer e.live.Unlock()
	return len(e.snapshots) + len(e.cursors)
}

// compactPurgeTimeout bounds the wait for RocksDB's background deletion of
// obsolete files after a compaction.
const compactPurgeTimeout = 30 * time.Second

// awaitPurge waits until no log file of before and no table file that is
// not live remains in the store's directory.
func (e *Engine) awaitPurge(before []walLog) error {
	deadline := time.Now().Add(compactPurgeTimeout)
	for {
		left, err := e.unpurged(before)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("files still present after %v: %s: %w", compactPurgeTimeout, strings.Join(left, ", "), storage.ErrCompactIncomplete)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// unpurged lists the files of the store that still hold deleted rows: the
// log files of before, and table files RocksDB no longer lists as live.
func (e *Engine) unpurged(before []walLog) ([]string, error) {
	var left []string
	for _, l := range before {
		if _, err := os.Stat(l.path); err == nil {
			left = append(left, filepath.Base(l.path))
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	live := make(map[string]bool)
	for _, f := range e.db.GetLiveFilesMetaData() {
		live[strings.TrimPrefix(f.Name, "/")] = true
	}
	entries, err := os.ReadDir(e.path)
	if err != nil {
		return nil, err
	}
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), ".sst") && !live[de.Name()] {
			left = append(left, de.Name())
		}
	}
	slices.Sort(left)
	return left, nil
}
