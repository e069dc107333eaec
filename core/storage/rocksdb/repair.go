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
	pitr := openMode{recovery: grocksdb.PointInTimeRecovery, createFamilies: true}
	if err := rep.check(cfg, pitr, logs, mark); err != nil {
		rep.noteDamage(err)
		if err := rep.rebuild(cfg); err != nil {
			return rep, err
		}
	}
	if err := rep.replay(cfg, pitr); err != nil {
		if !errors.Is(err, storage.ErrCorrupt) || rep.Rebuilt {
			return rep, fmt.Errorf("repair %s: %w", path, err)
		}
		// A table file that cannot be read whole.
		rep.noteDamage(err)
		if err := rep.rebuild(cfg); err != nil {
			return rep, err
		}
		if err := rep.replay(cfg, pitr); err != nil {
			return rep, fmt.Errorf("repair %s: after rebuilding the MANIFEST: %w", path, err)
		}
	}
	rep.count(logs, mark, path)

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
	if err := grocksdb.RepairDb(cfg.Path, opts.db); err != nil {
		if isLockError(err) {
			return fmt.Errorf("repair %s: %w: %v", cfg.Path, ErrLocked, err)
		}
		return fmt.Errorf("repair %s: rebuild the MANIFEST: %w", cfg.Path, classify(err))
	}
	rep.Rebuilt = true
	rep.Lost = lostFiles(cfg.Path)
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
		rep.DroppedWrites = end - rep.Sequence
		if rep.From == "" {
			rep.From, rep.Offset = missingFrom(logs, path), -1
		}
	}
}

// dropOffset is where recovery of l stops: its damage, or its torn tail.
func (l *walLog) dropOffset() int64 {
	if l.damage != nil {
		return l.damage.Offset
	}
	return l.torn
}
