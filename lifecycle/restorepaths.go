package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A restore reads a checkpoint and a ledger and writes a new store and its
// work directory beside it (newDir.restoring). None of them may overlap:
// a new store inside the checkpoint would be copied into itself, and a
// checkpoint that is the work directory of another restore would be
// removed as one. Paths are compared as the file system resolves them
// (symbolic links of their existing parts followed), so that another
// spelling of a directory is the directory.

// checkRestoreDirs refuses, with ErrRestoreTarget, a checkpoint that is not
// the directory of a RocksDB store (it has a regular CURRENT file) or is a
// restore's work directory, a new store path that exists or whose parent
// is not a directory, and a new store, or its work directory, that
// overlaps the checkpoint.
func checkRestoreDirs(checkpointDir, newDir string) error {
	if fi, err := os.Stat(checkpointDir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: the checkpoint %s is not a directory (%v)", ErrRestoreTarget, checkpointDir, err)
	}
	if IsRestoreWork(checkpointDir) {
		return fmt.Errorf("%w: %s is the work directory of a restore, not a checkpoint", ErrRestoreTarget, checkpointDir)
	}
	if fi, err := os.Lstat(filepath.Join(checkpointDir, "CURRENT")); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s holds no RocksDB store (no CURRENT file)", ErrRestoreTarget, checkpointDir)
	}
	if err := checkRegularTree(checkpointDir); err != nil {
		return err
	}
	if _, err := os.Lstat(newDir); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: the new store %s exists (%v)", ErrRestoreTarget, newDir, err)
	}
	if fi, err := os.Stat(filepath.Dir(filepath.Clean(newDir))); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: the parent of the new store %s is not a directory (%v)", ErrRestoreTarget, newDir, err)
	}
	if err := CheckOutsideCheckpoints(newDir); err != nil {
		return fmt.Errorf("%w: %w", ErrRestoreTarget, err)
	}
	from, err := resolve(checkpointDir)
	if err != nil {
		return err
	}
	to, err := resolve(newDir)
	if err != nil {
		return err
	}
	for _, dir := range []string{to, to + restoringSuffix} {
		if within(dir, from) || within(from, dir) {
			return fmt.Errorf("%w: the new store %s and the checkpoint %s overlap", ErrRestoreTarget, dir, from)
		}
	}
	return nil
}

// IsRestoreWork reports whether dir is named as the work directory of a
// restore (NEWDIR.restoring), which Restore removes: no checkpoint may be
// written or read there.
func IsRestoreWork(dir string) bool {
	return strings.HasSuffix(filepath.Clean(dir), restoringSuffix)
}

// checkRegularTree refuses, with ErrRestoreTarget wrapping ErrNotRegular,
// a checkpoint that holds anything but directories and regular files: a
// FIFO in it would block the read-only open, and the copy, that read it.
func checkRegularTree(dir string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRestoreTarget, err)
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return fmt.Errorf("%w: %w", ErrRestoreTarget, err)
		case d.IsDir() || d.Type().IsRegular():
			return nil
		}
		return fmt.Errorf("%w: the checkpoint holds %s, %s: %w", ErrRestoreTarget, path, describeMode(d.Type()), ErrNotRegular)
	})
}

// CheckLedgerPath refuses, with ErrRestoreTarget, a ledger path (a ledger
// file, or a store's directory) that is the checkpoint a restore reads or
// lies inside it: the checkpoint's own ledger is already in the copy, and
// a restore reads only what lies outside the backup it restores.
func CheckLedgerPath(ledgerPath, checkpointDir string) error {
	inside, err := Within(ledgerPath, checkpointDir)
	if err != nil {
		return err
	}
	if inside {
		return fmt.Errorf("%w: the ledger %s lies inside the checkpoint %s", ErrRestoreTarget, ledgerPath, checkpointDir)
	}
	return nil
}

// Within reports whether path is dir or lies below it, as the file system
// resolves them: absolute, with the symbolic links of their existing parts
// followed, so that another spelling of a directory is the directory.
func Within(path, dir string) (bool, error) {
	p, err := resolve(path)
	if err != nil {
		return false, err
	}
	d, err := resolve(dir)
	if err != nil {
		return false, err
	}
	return within(p, d), nil
}

// resolve returns path made absolute, its longest existing prefix with
// every symbolic link followed.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether path is dir or lies below it; both are resolved.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
