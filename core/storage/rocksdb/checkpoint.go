package rocksdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Checkpoint writes a consistent copy of the store to dir, which must not
// exist, with RocksDB's Checkpoint: table files are hard-linked when dir is
// on the same file system, copied otherwise. The memtables are flushed
// first (log_size_for_flush 0), so the copy does not depend on replaying a
// write-ahead log. The copy opens as a working store with Open.
//
// The target is checked first, since RocksDB would take a path with a NUL
// byte for the part before it: an existing dir fails with fs.ErrExist, an
// empty path, a NUL byte, a file on the way, or a dir inside the store
// itself with ErrBadPath.
func (e *Engine) Checkpoint(dir string) error {
	if err := e.enterWrite(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	defer e.mu.RUnlock()
	if err := e.checkTarget(dir); err != nil {
		return fmt.Errorf("checkpoint %s to %q: %w", e.path, dir, err)
	}
	cp, err := e.db.NewCheckpoint()
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", e.path, err)
	}
	defer cp.Destroy()
	if err := cp.CreateCheckpoint(dir, 0); err != nil {
		return fmt.Errorf("checkpoint %s to %s: %w", e.path, dir, classify(err))
	}
	return nil
}

// checkTarget refuses a checkpoint directory that Checkpoint must not
// write.
func (e *Engine) checkTarget(dir string) error {
	if err := checkPath(dir); err != nil {
		return err
	}
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%w: the target exists", fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	store, err1 := filepath.Abs(e.path)
	target, err2 := filepath.Abs(dir)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if rel, err := filepath.Rel(store, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: the target lies inside the store", ErrBadPath)
	}
	return nil
}
