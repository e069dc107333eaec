package rocksdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// RepairReport says what Repair found in a store and what it dropped.
type RepairReport struct {
	// Damage is the first damage found in the write-ahead logs, or the
	// corruption that kept the store from opening; nil if none.
	Damage error
	// DroppedBatches counts the write batches of the logs, from the
	// damaged one on, that the repaired store no longer holds; a damaged
	// record whose batch cannot be read counts as one.
	DroppedBatches int
	// DroppedWrites counts the sequence numbers (single puts, deletes and
	// range deletes) lost: from the end of the repaired store to the end
	// of what was acknowledged or readable in the logs.
	DroppedWrites uint64
	// From names the file, and Offset the place in it, where dropping
	// began; empty if nothing was dropped.
	From   string
	Offset int64
	// FirstDropped is the first sequence number dropped, when
	// DroppedWrites is not zero: Sequence+1 when the store was cut back
	// to a prefix of its history, or the first sequence number of the
	// damaged records when only they were dropped (SkippedDamage).
	FirstDropped uint64
	// SkippedDamage says the store could not go back to a prefix of its
	// history, because table files already held writes made after the
	// damage (a flush ran after them): Repair then dropped only the
	// batches that cannot be read, and kept every readable batch after
	// them.
	SkippedDamage bool
	// Sequence is the last sequence number of the repaired store.
	Sequence uint64
	// Rebuilt says RocksDB's repairer rebuilt the MANIFEST from the table
	// files; Lost lists the files it set aside in the store's lost/
	// directory, whose rows are gone.
	Rebuilt bool
	Lost    []string
}

// Repair makes a damaged store at path open again, dropping what cannot be
// read, and reports what it dropped. It is the operator's explicit decision
// (`telha repair -data DIR`): Open refuses a damaged store rather than drop
// acknowledged writes silently.
//
// A damaged write-ahead log is replayed up to its first damage and no
// further (RocksDB's point-in-time recovery): every batch after it, in that
// log and later ones, is dropped, so the store stays a prefix of its
// history. The replayed state is flushed to table files, the damaged logs
// are retired, and the sync mark restarts at the repaired store's end.
//
// A damaged log that table files have outrun (a family flushed writes made
// after the damage) cannot be cut back to a prefix: RocksDB refuses that
// point-in-time recovery. Repair then drops only the batches that cannot
// be read, keeps every readable batch before and after them, and says so
// (SkippedDamage).
//
// A store whose MANIFEST cannot be read, or lost track of table files, or
// that holds a table file that cannot be read whole, has its MANIFEST
// rebuilt by RocksDB's repairer from the table files it can read; it sets
// the others aside in lost/ (listed in the report). That repairer replays
// from the logs only the batches whose families all have a table file:
// DroppedWrites counts what that loses. The store must not be open
// elsewhere (ErrLocked). After Repair, Open succeeds; Repair checks that it
// does.
func Repair(path string) (RepairReport, error) {
	var rep RepairReport
	if err := checkPath(path); err != nil {
		return rep, fmt.Errorf("repair %q: %w", path, err)
	}
	cfg := Config{Path: path}
	if _, err := checkStore(cfg); err != nil {
		if !errors.Is(err, storage.ErrCorrupt) {
			return rep, fmt.Errorf("repair: %w", err)
		}
		rep.noteDamage(err)
	}
	logs, err := scanLogs(path)
	if err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	rep.noteDamage(checkLogs(logs))
	ms, err := readMark(path)
	rep.noteDamage(err) // a damaged mark says nothing: repair starts it again
	mark := ms.seq

	// Look first, writing nothing: a read-write open would delete the
	// table files a damaged MANIFEST no longer lists.
	mode := openMode{recovery: grocksdb.PointInTimeRecovery, createFamilies: true}
	if err := rep.check(cfg, mode, logs, mark); err != nil {
		if err := rep.mend(cfg, logs, err); err != nil {
			return rep, err
		}
	}
	for {
		err := rep.replay(cfg, mode)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrCorrupt) {
			return rep, fmt.Errorf("repair %s: %w", path, err)
		}
		// A table file that cannot be read whole, or table files that
		// outran a damaged log.
		if err := rep.mend(cfg, logs, err); err != nil {
			return rep, err
		}
	}
	if err := retireLogs(logs, path); err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	if rep.SkippedDamage {
		rep.countSkipped(logs, mark)
	} else {
		rep.count(logs, mark, path)
	}

	m, err := openMark(path, rep.Sequence)
	if err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, classifyOS(err))
	}
	m.close(path, true)
	e, err := Open(cfg)
	if err != nil {
		return rep, fmt.Errorf("repair %s: the repaired store does not open: %w", path, err)
	}
	return rep, e.Close()
}

// mend answers the corruption err that keeps the store from recovering:
// table files that outran a damaged log have the log written again without
// its damaged records (rewriteDamagedLogs); anything else has the MANIFEST
// rebuilt (rebuild). Each is tried once; a corruption that remains after
// both is returned.
func (rep *RepairReport) mend(cfg Config, logs []walLog, err error) error {
	rep.noteDamage(err)
	switch {
	case isOutrunError(err) && !rep.SkippedDamage:
		rep.SkippedDamage = true
		if err := rewriteDamagedLogs(logs); err != nil {
			return fmt.Errorf("repair %s: %w", cfg.Path, err)
		}
		return nil
	case !rep.Rebuilt:
		return rep.rebuild(cfg)
	}
	return fmt.Errorf("repair %s: after rebuilding the MANIFEST: %w", cfg.Path, err)
}

// noteDamage keeps err as the damage found, unless some was found before.
func (rep *RepairReport) noteDamage(err error) {
	if rep.Damage == nil {
		rep.Damage = err
	}
}

// check opens the store read-only and returns the corruption that calls
// for a rebuilt MANIFEST: one that does not open, or that lost track of
// table files the acknowledged writes are in. A store short of the mark
// for another reason (a log cut short) is noted, not rebuilt: its logs
// hold what is left.
func (rep *RepairReport) check(cfg Config, mode openMode, logs []walLog, mark uint64) error {
	mode.readOnly = true // takes no lock: the repairer, which does, reports one
	ro, err := openStore(cfg, mode)
	if err != nil && isLogTrackingError(err) {
		// A tracked log is missing or cut short: the logs hold what is
		// left, which the replay recovers; the MANIFEST is sound.
		rep.noteDamage(err)
		return nil
	}
	if err != nil {
		return err
	}
	latest, orphans := ro.db.GetLatestSequenceNumber(), ro.orphans(cfg.Path)
	ro.close()
	if latest >= mark {
		return nil
	}
	lost := lostWrites(cfg.Path, logs, mark, latest, orphans)
	if len(orphans) > 0 {
		return lost
	}
	rep.noteDamage(lost)
	return nil
}

// replay opens the store read-write with point-in-time recovery, flushes
// what it recovered to table files (retiring the logs), reads every row
// back, and records where the store now ends.
func (rep *RepairReport) replay(cfg Config, mode openMode) error {
	st, err := openStore(cfg, mode)
	if err != nil {
		return err
	}
	defer st.close()
	rep.Sequence = st.db.GetLatestSequenceNumber()
	if err := flushAll(st.db, st.handles); err != nil {
		return fmt.Errorf("flush: %w", classify(err))
	}
	return st.verify(false)
}

// rebuild runs RocksDB's repairer on the store (see Repair).
func (rep *RepairReport) rebuild(cfg Config) error {
	opts, err := newOptions(cfg, openMode{recovery: grocksdb.PointInTimeRecovery})
	if err != nil {
		return err
	}
	defer opts.destroy()
	kept, err := keepStore(cfg.Path)
	if err != nil {
		return fmt.Errorf("repair %s: %w", cfg.Path, err)
	}
	if err := grocksdb.RepairDb(cfg.Path, opts.db); err != nil {
		if isLockError(err) {
			return errors.Join(fmt.Errorf("repair %s: %w: %v", cfg.Path, ErrLocked, err), kept.discard())
		}
		err = fmt.Errorf("repair %s: rebuild the MANIFEST: %w (the store is left as it was)", cfg.Path, classify(err))
		return errors.Join(err, kept.restore())
	}
	rep.Rebuilt = true
	rep.Lost = lostFiles(cfg.Path)
	return kept.discard()
}

// rewriteDamagedLogs writes every damaged log again without its damaged
// records (rewriteLog), setting the damaged files aside in the store's
// lost/ directory. A log is damaged if its scan found damage, or if it
// ends in a torn record and a later log holds batches (a crash tears only
// the last record written).
func rewriteDamagedLogs(logs []walLog) error {
	for i := range logs {
		if damagedLog(logs, i) {
			if err := rewriteLog(&logs[i], filepath.Join(filepath.Dir(logs[i].path), "lost")); err != nil {
				return err
			}
		}
	}
	return nil
}

// damagedLog reports whether logs[i] is damaged (see rewriteDamagedLogs).
func damagedLog(logs []walLog, i int) bool {
	l := &logs[i]
	return l.damage != nil || l.torn >= 0 && lastWithBatches(logs[i+1:]) != nil
}

// retireLogs moves the write-ahead logs that the store held before the
// repair, and that RocksDB has not deleted, into its lost/ directory: the
// replay flushed everything it recovered from them to table files, so the
// store no longer needs them, and a damaged one left in place would make
// Open refuse the repaired store.
func retireLogs(logs []walLog, path string) error {
	lost := filepath.Join(path, "lost")
	for _, l := range logs {
		if _, err := os.Lstat(l.path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.MkdirAll(lost, 0o755); err != nil {
			return fmt.Errorf("retire write-ahead logs: %w", err)
		}
		if err := os.Rename(l.path, filepath.Join(lost, filepath.Base(l.path))); err != nil {
			return fmt.Errorf("retire write-ahead logs: %w", err)
		}
	}
	return nil
}

// lostFiles lists what RocksDB's repairer set aside.
func lostFiles(path string) []string {
	var lost []string
	_ = filepath.WalkDir(filepath.Join(path, "lost"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			lost = append(lost, p)
		}
		return nil
	})
	return lost
}

// count fills in what was dropped: the readable batches of the logs that
// start past the repaired store's end, one for each damaged record, and
// the sequence numbers from that end to the highest one acknowledged
// (mark) or readable in the logs.
func (rep *RepairReport) count(logs []walLog, mark uint64, path string) {
	end := mark
	for i := range logs {
		l := &logs[i]
		end = max(end, l.last())
		dropped := 0
		for _, seqs := range [][]uint64{l.seqs, l.lostSeqs} {
			for _, seq := range seqs {
				if seq > rep.Sequence {
					dropped++
				}
			}
		}
		if l.badRecord {
			dropped++
		}
		if dropped > 0 && rep.From == "" {
			rep.From, rep.Offset = l.path, l.dropOffset()
		}
		rep.DroppedBatches += dropped
	}
	if end > rep.Sequence {
		rep.DroppedWrites, rep.FirstDropped = end-rep.Sequence, rep.Sequence+1
		if rep.From == "" {
			rep.From, rep.Offset = missingFrom(logs, path), -1
		}
	}
}

// countSkipped fills in what a repair that kept the readable batches after
// the damage (SkippedDamage) dropped: the damaged records of each damaged
// log, and the sequence numbers between the last whole batch before the
// damage and the first one after it (in the same log or a later one), or,
// where none follows, to the highest one acknowledged (mark) or readable.
func (rep *RepairReport) countSkipped(logs []walLog, mark uint64) {
	var end uint64 // one past the highest sequence number seen so far
	for i := range logs {
		l := &logs[i]
		if !damagedLog(logs, i) {
			end = max(end, l.last()+1)
			continue
		}
		if rep.From == "" {
			rep.From, rep.Offset = l.path, l.dropOffset()
		}
		if l.badRecord || l.damage == nil {
			rep.DroppedBatches++
		}
		start := end
		if len(l.seqs) > 0 {
			start = l.next
		}
		after := max(mark+1, l.last()+1)
		if len(l.lostSeqs) > 0 {
			after = l.lostSeqs[0]
		} else if next := firstWithBatches(logs[i+1:]); next != nil {
			after = next.first()
		}
		if after > start {
			if rep.DroppedWrites == 0 {
				rep.FirstDropped = start
			}
			rep.DroppedWrites += after - start
		}
		end = max(end, l.last()+1)
	}
}

// dropOffset is where recovery of l stops: its damage, or its torn tail.
func (l *walLog) dropOffset() int64 {
	if l.damage != nil {
		return l.damage.Offset
	}
	return l.torn
}
