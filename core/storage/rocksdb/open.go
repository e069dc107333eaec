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
// ErrBadConfig, ErrNotExist, ErrLocked, ErrNotStore, ErrMissingFamily,
// ErrUnexpectedFamily, storage.ErrNoSpace. A create that fails part way removes what it made.
//
// Open refuses a store whose write-ahead log is damaged, rather than
// recover what precedes the damage and drop the rest: the error is a
// *CorruptError (storage.ErrCorrupt) that names the log file and the
// offset. It refuses likewise a store that would recover to fewer writes
// than were acknowledged (see syncMark): a log cut short, or a MANIFEST
// that lost track of table files. It finds that out with a read-only open,
// which writes and deletes nothing, so that a refused store is left as it
// was found. Only the torn record that a crash leaves at the end of the
// log, never acknowledged, is dropped silently. Recovery from damage is an
// operator's decision: Repair.
func Open(cfg Config) (*Engine, error) {
	if errBinding != nil {
		return nil, fmt.Errorf("open %q: %w", cfg.Path, errBinding)
	}
	if err := checkPath(cfg.Path); err != nil {
		return nil, fmt.Errorf("open %q: %w", cfg.Path, err)
	}
	if cfg.MemtableSize > MaxMemtableSize {
		return nil, fmt.Errorf("open %s: %w: MemtableSize %d is above MaxMemtableSize %d", cfg.Path, ErrBadConfig, cfg.MemtableSize, uint64(MaxMemtableSize))
	}
	if cfg.ReadOnly {
		return openReadOnly(cfg)
	}
	_, statErr := os.Stat(cfg.Path)
	existed := statErr == nil
	create, err := checkStore(cfg)
	if err != nil {
		return nil, err
	}
	var logs []walLog
	var ms markState
	if !create {
		if logs, err = scanLogs(cfg.Path); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
		if err := checkLogs(logs); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
		if ms, err = readMark(cfg.Path); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
	}
	mode := openMode{create: create, recovery: grocksdb.TolerateCorruptedTailRecordsRecovery, trackLogs: true}
	if ms.marked && !ms.unchanged(cfg.Path, logs) {
		if err := checkRecovers(cfg, mode, logs, ms.seq); err != nil {
			return nil, err
		}
	}
	st, err := openStore(cfg, mode)
	if err != nil {
		if create && !errors.Is(err, ErrLocked) {
			removeCreated(cfg.Path, existed)
		}
		return nil, err
	}
	latest := st.db.GetLatestSequenceNumber()
	if cfg.VerifyKeys {
		if err := st.verify(true); err != nil {
			st.close()
			return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
		}
	}
	m, err := openMark(cfg.Path, max(ms.seq, latest))
	if err != nil {
		st.close()
		if create {
			removeCreated(cfg.Path, existed)
		}
		return nil, fmt.Errorf("open %s: %w", cfg.Path, classifyOS(err))
	}
	return newEngine(cfg, st.db, st.handles, st.families, m), nil
}

// checkRecovers opens the store read-only with mode and refuses it if it
// recovers to less than the sync mark, or if it is damaged. Another error
// (a file that another process, holding the store, deleted under the
// read-only open) is left to the read-write open, which names the lock.
func checkRecovers(cfg Config, mode openMode, logs []walLog, mark uint64) error {
	mode.readOnly = true
	ro, err := openStore(cfg, mode)
	if errors.Is(err, storage.ErrCorrupt) {
		return err
	}
	if err != nil {
		return nil
	}
	latest, orphans := ro.db.GetLatestSequenceNumber(), ro.orphans(cfg.Path)
	ro.close()
	if latest < mark {
		return fmt.Errorf("open %s: %w", cfg.Path, lostWrites(cfg.Path, logs, mark, latest, orphans))
	}
	return nil
}

// orphans returns the table files in the store's directory that its
// MANIFEST does not list.
func (st *store) orphans(path string) []string {
	live := make(map[string]bool)
	for _, f := range st.db.GetLiveFilesMetaData() {
		live[filepath.Base(f.Name)] = true
	}
	tables, _ := filepath.Glob(filepath.Join(path, "*.sst"))
	return slices.DeleteFunc(tables, func(t string) bool { return live[filepath.Base(t)] })
}

// store is a RocksDB store opened with Telha's families.
type store struct {
	db       *grocksdb.DB
	handles  []*grocksdb.ColumnFamilyHandle // "default", then families
	families []storage.ColumnFamily
}

// openMode says how openStore opens a store.
type openMode struct {
	readOnly       bool // writes and deletes nothing
	create         bool // a new store, with all its families
	createFamilies bool // add the families a repaired store lacks
	recovery       grocksdb.WALRecoveryMode
	// trackLogs verifies the write-ahead logs recorded in the MANIFEST
	// (track_and_verify_wals_in_manifest); without it, RocksDB forgets
	// them.
	trackLogs bool
}

// openStore opens RocksDB at cfg.Path with Telha's families.
//
// A read-only open always verifies the logs that the MANIFEST tracks:
// without that option, RocksDB 7.8 (db_impl_open.cc, DBImpl::Recover)
// clears the tracked logs from the MANIFEST by an edit that only a
// read-write open can apply, and asserts (recovery_ctx != nullptr),
// aborting the process, when a read-only open finds any. A store holds
// tracked logs whenever a process died between the sync of a closed log
// and its deletion: a crash during a large ingest.
func openStore(cfg Config, mode openMode) (*store, error) {
	if mode.readOnly {
		mode.trackLogs = true
	}
	opts, err := newOptions(cfg, mode)
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
	var db *grocksdb.DB
	var handles []*grocksdb.ColumnFamilyHandle
	if mode.readOnly {
		db, handles, err = grocksdb.OpenDbForReadOnlyColumnFamilies(opts.db, cfg.Path, names, familyOpts, false)
	} else {
		db, handles, err = grocksdb.OpenDbColumnFamilies(opts.db, cfg.Path, names, familyOpts)
	}
	if err != nil {
		if isLockError(err) {
			return nil, fmt.Errorf("open %s: %w: %v", cfg.Path, ErrLocked, err)
		}
		return nil, fmt.Errorf("open %s: %w", cfg.Path, classify(err))
	}
	return &store{db: db, handles: handles, families: families}, nil
}

// verify reads every row of the store, so that RocksDB checks the checksum
// of every block, and returns an error wrapping storage.ErrCorrupt for the
// first it cannot read. With checkKeys, it also refuses a row whose key the
// key authority could not have built, and any row at all in RocksDB's
// default family, where Telha writes nothing.
func (st *store) verify(checkKeys bool) error {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true)
	ro.SetFillCache(false)
	for i, h := range st.handles {
		cf := storage.ColumnFamily(0)
		if i > 0 {
			cf = st.families[i-1]
		}
		if err := verifyFamily(st.db.NewIteratorCF(ro, h), cf, checkKeys); err != nil {
			return err
		}
	}
	return nil
}

// verifyFamily reads every row of it, checking the keys against family cf
// (0 for RocksDB's default family, which must be empty) if checkKeys, and
// closes it.
func verifyFamily(it *grocksdb.Iterator, cf storage.ColumnFamily, checkKeys bool) error {
	defer it.Close()
	for it.SeekToFirst(); it.Valid(); it.Next() {
		if !checkKeys {
			continue
		}
		key := it.Key()
		var err error
		if cf == 0 {
			err = errors.New("a row in RocksDB's default family, where Telha writes nothing")
		} else {
			err = storage.CheckKeyBytes(cf, key.Data())
		}
		if err != nil {
			err = fmt.Errorf("%w: %s row %x: %w", storage.ErrCorrupt, familyName(cf), key.Data(), err)
		}
		key.Free()
		if err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return classify(err)
	}
	return nil
}

// holdsData reports whether path holds RocksDB table or log files: a
// directory with a CURRENT file and those is a store, however damaged.
func holdsData(path string) bool {
	for _, pattern := range []string{"*.sst", "*.log"} {
		if m, _ := filepath.Glob(filepath.Join(path, pattern)); len(m) > 0 {
			return true
		}
	}
	return false
}

// familyName names family cf, or RocksDB's default family for 0.
func familyName(cf storage.ColumnFamily) string {
	if cf == 0 {
		return defaultFamily
	}
	return cf.String()
}

// close releases a store that no engine took over.
func (st *store) close() {
	for _, h := range st.handles {
		h.Destroy()
	}
	st.db.Close()
}

// lostWrites describes a store that recovers to sequence number latest
// although writes up to mark were acknowledged: the MANIFEST lost track of
// table files (orphans), or the end of the log was cut or damaged after
// they were synced.
func lostWrites(path string, logs []walLog, mark, latest uint64, orphans []string) error {
	lost := fmt.Sprintf("writes were acknowledged up to sequence number %d, but the store recovers only to %d", mark, latest)
	if len(orphans) > 0 {
		return &CorruptError{File: currentManifest(path), Offset: -1, Reason: fmt.Sprintf(
			"%s: the MANIFEST no longer lists %d table files, such as %s", lost, len(orphans), filepath.Base(orphans[0]))}
	}
	offset := int64(-1)
	if l := lastWithBatches(logs); l != nil {
		offset = l.torn
	}
	return &CorruptError{File: missingFrom(logs, path), Offset: offset, Reason: lost +
		": the write-ahead log was cut short, removed, or its last records damaged"}
}

// currentManifest names the MANIFEST that the store's CURRENT file points
// to, or CURRENT itself if it cannot be read.
func currentManifest(path string) string {
	current := filepath.Join(path, "CURRENT")
	name, err := os.ReadFile(current)
	if err != nil || len(strings.TrimSpace(string(name))) == 0 {
		return current
	}
	return filepath.Join(path, strings.TrimSpace(string(name)))
}

// missingFrom names the file where writes that no log holds should have
// been: the newest log, or the store at path itself if none is left.
func missingFrom(logs []walLog, path string) string {
	if l := lastWithBatches(logs); l != nil {
		return l.path
	}
	if len(logs) > 0 {
		return logs[len(logs)-1].path
	}
	return path
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
	// A CURRENT that is not a regular file (a FIFO would block RocksDB's
	// read of it) is no store either.
	if fi, err := os.Lstat(filepath.Join(path, "CURRENT")); err != nil || !fi.Mode().IsRegular() {
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
		if classified := classify(err); errors.Is(classified, storage.ErrCorrupt) || holdsData(path) {
			// A store, damaged: its MANIFEST cannot be read.
			return fmt.Errorf("open %s: %w: %v", path, storage.ErrCorrupt, err)
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
