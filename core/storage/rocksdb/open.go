package rocksdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// defaultFamily is the family RocksDB creates in every store. Telha writes
// nothing to it, but RocksDB requires it to be opened.
const defaultFamily = "default"

// Open opens the store at cfg.Path, or creates it when cfg.CreateIfMissing
// allows. The directory is checked before RocksDB touches it, so that every
// failure is a typed error and nothing is created or left open: ErrBadPath,
// ErrNotExist, ErrLocked, ErrNotStore, ErrMissingFamily, ErrUnexpectedFamily,
// storage.ErrNoSpace. A create that fails part way removes what it made.
//
// Open refuses a store whose write-ahead log is damaged, rather than
// recover what precedes the damage and drop the rest: the error is a
// *CorruptError (storage.ErrCorrupt) that names the log file and the
// offset. It refuses likewise a store that recovers to fewer writes than
// were acknowledged (see syncMark). Only the torn record that a crash
// leaves at the end of the log, never acknowledged, is dropped silently.
// Recovery from damage is an operator's decision: Repair.
func Open(cfg Config) (*Engine, error) {
	if err := checkPath(cfg.Path); err != nil {
		return nil, fmt.Errorf("open %q: %w", cfg.Path, err)
	}
	_, statErr := os.Stat(cfg.Path)
	existed := statErr == nil
	create, err := checkStore(cfg)
	if err != nil {
		return nil, err
	}
	var logs []walLog
	var mark uint64
	var marked bool
	if !create {
		if logs, err = scanLogs(cfg.Path); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
		if err := checkLogs(logs); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
		if mark, marked, err = readMark(cfg.Path); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
	}
	st, err := openStore(cfg, create, grocksdb.TolerateCorruptedTailRecordsRecovery, true)
	if err != nil {
		if create && !errors.Is(err, ErrLocked) {
			removeCreated(cfg.Path, existed)
		}
		return nil, err
	}
	latest := st.db.GetLatestSequenceNumber()
	if marked && latest < mark {
		st.close()
		return nil, fmt.Errorf("open %s: %w", cfg.Path, missingWrites(cfg.Path, logs, mark, latest))
	}
	m, err := openMark(cfg.Path, max(mark, latest))
	if err != nil {
		st.close()
		if create {
			removeCreated(cfg.Path, existed)
		}
		return nil, fmt.Errorf("open %s: %w", cfg.Path, classifyOS(err))
	}
	return newEngine(cfg, st.db, st.handles, st.families, m), nil
}

// store is a RocksDB store opened with Telha's families.
type store struct {
	db       *grocksdb.DB
	handles  []*grocksdb.ColumnFamilyHandle // "default", then families
	families []storage.ColumnFamily
}

// openStore opens RocksDB at cfg.Path with recovery mode mode, verifying
// the write-ahead logs tracked in the MANIFEST when trackLogs is set.
func openStore(cfg Config, create bool, mode grocksdb.WALRecoveryMode, trackLogs bool) (*store, error) {
	opts, err := newOptions(cfg, create, mode, trackLogs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	defer opts.destroy()

	families := storage.Families()
	names := []string{defaultFamily}
	familyOpts := []*grocksdb.Options{opts.db}
	for _, cf := range families {
		names = append(names, cf.String())
		familyOpts = append(familyOpts, opts.forFamily(cf))
	}
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts.db, cfg.Path, names, familyOpts)
	if err != nil {
		if isLockError(err) {
			return nil, fmt.Errorf("open %s: %w: %v", cfg.Path, ErrLocked, err)
		}
		return nil, fmt.Errorf("open %s: %w", cfg.Path, classify(err))
	}
	return &store{db: db, handles: handles, families: families}, nil
}

// close releases a store that no engine took over.
func (st *store) close() {
	for _, h := range st.handles {
		h.Destroy()
	}
	st.db.Close()
}

// missingWrites describes a store that recovered to sequence number latest
// although writes up to mark were acknowledged: the end of the log was cut
// or damaged after they were synced.
func missingWrites(path string, logs []walLog, mark, latest uint64) error {
	reason := fmt.Sprintf("writes were acknowledged up to sequence number %d, but the store recovers only to %d: "+
		"the write-ahead log was cut short or its last records damaged", mark, latest)
	if l := lastWithBatches(logs); l != nil {
		return &CorruptError{File: l.path, Offset: l.torn, Reason: reason}
	}
	if len(logs) > 0 {
		return &CorruptError{File: logs[len(logs)-1].path, Offset: -1, Reason: reason}
	}
	return &CorruptError{File: path, Offset: -1, Reason: reason + " (no write-ahead log is left)"}
}

// checkPath refuses a path that cannot name a store directory before
// anything looks at it: RocksDB would read a path with a NUL byte as the
// part before it, and the system calls would fail with errors that name no
// cause. The error wraps ErrBadPath.
func checkPath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("%w: empty path", ErrBadPath)
	case strings.IndexByte(path, 0) >= 0:
		return fmt.Errorf("%w: %q holds a NUL byte", ErrBadPath, path)
	}
	// The nearest existing ancestor must be a directory.
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		switch {
		case err == nil && !info.IsDir():
			return fmt.Errorf("%w: %s is not a directory", ErrBadPath, dir)
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// removeCreated removes what a failed create left at path: Open creates
// only in a missing or empty directory, and a lock error (another opener
// created it) never reaches here, so everything there is the failed
// create's. The directory itself stays if it existed before.
func removeCreated(path string, existed bool) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, de := range entries {
		_ = os.RemoveAll(filepath.Join(path, de.Name()))
	}
	if !existed {
		_ = os.Remove(path)
	}
}

// classifyOS wraps a file-system error with storage.ErrNoSpace when the
// device is full.
func classifyOS(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: %w", storage.ErrNoSpace, err)
	}
	return err
}

// checkStore decides whether Open creates a new store (a missing or empty
// directory, when allowed) or opens an existing one, which must hold exactly
// the default family and Telha's 13.
func checkStore(cfg Config) (create bool, err error) {
	path := cfg.Path
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && cfg.CreateIfMissing:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("open %s: %w: %w", path, ErrNotExist, err)
	case err != nil:
		return false, fmt.Errorf("open %s: %w", path, err)
	case !info.IsDir():
		return false, fmt.Errorf("open %s: %w: not a directory", path, ErrNotStore)
	}
	entries, err := os.ReadDir(path)
	switch {
	case err != nil:
		return false, fmt.Errorf("open %s: %w", path, err)
	case len(entries) == 0 && cfg.CreateIfMissing:
		return true, nil
	case len(entries) == 0:
		return false, fmt.Errorf("open %s: %w: empty directory", path, ErrNotExist)
	}
	// Every RocksDB store has a CURRENT file naming its manifest. Without
	// one, RocksDB would create a store among someone else's files.
	if _, err := os.Stat(filepath.Join(path, "CURRENT")); err != nil {
		return false, fmt.Errorf("open %s: %w: no RocksDB CURRENT file", path, ErrNotStore)
	}
	return false, checkFamilies(path)
}

// checkFamilies compares the families recorded in the store's manifest with
// storage.Families. RocksDB refuses to open a store without naming all its
// families, and would create missing ones only if asked; checking first
// gives each mismatch its own error.
func checkFamilies(path string) error {
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names, err := grocksdb.ListColumnFamilies(opts, path)
	if err != nil {
		if classified := classify(err); errors.Is(classified, storage.ErrCorrupt) {
			return fmt.Errorf("open %s: %w", path, classified) // a store, damaged
		}
		return fmt.Errorf("open %s: %w: %w", path, ErrNotStore, err)
	}
	var missing []string
	for _, cf := range storage.Families() {
		if i := slices.Index(names, cf.String()); i >= 0 {
			names = slices.Delete(names, i, i+1)
		} else {
			missing = append(missing, cf.String())
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == defaultFamily })
	switch {
	case len(missing) == len(storage.Families()):
		return fmt.Errorf("open %s: %w: none of its column families is Telha's", path, ErrNotStore)
	case len(missing) > 0:
		return fmt.Errorf("open %s: %w: %s", path, ErrMissingFamily, strings.Join(missing, ", "))
	case len(names) > 0:
		slices.Sort(names)
		return fmt.Errorf("open %s: %w: %s", path, ErrUnexpectedFamily, strings.Join(names, ", "))
	}
	return nil
}
