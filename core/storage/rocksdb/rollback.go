package rocksdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// RocksDB's repairer (RepairDb) rewrites a store in place: a new MANIFEST,
// table files made from the logs, files moved into lost/. When it fails
// part way, it leaves a store that is worse than the damaged one (in 7.8,
// one whose MANIFEST lists none of Telha's families). Repair therefore
// keeps the store as it was, by hard links (no data is copied: every file
// RocksDB changes, it replaces), and puts it back if the repairer fails.

// rollback is the store at path as it was, kept in dir.
type rollback struct {
	path, dir string
	files     map[string]bool // top-level files of the store, and of its lost/
}

// keepStore links every file of the store at path, and of its lost/
// directory, into a new directory beside it.
func keepStore(path string) (*rollback, error) {
	dir, err := os.MkdirTemp(filepath.Dir(filepath.Clean(path)), filepath.Base(path)+".repair-*")
	if err != nil {
		return nil, fmt.Errorf("keep the store before rebuilding its MANIFEST: %w", err)
	}
	rb := &rollback{path: path, dir: dir, files: make(map[string]bool)}
	for _, sub := range []string{"", "lost"} {
		entries, err := os.ReadDir(filepath.Join(path, sub))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("keep the store before rebuilding its MANIFEST: %w", err), rb.discard())
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, errors.Join(fmt.Errorf("keep the store before rebuilding its MANIFEST: %w", err), rb.discard())
		}
		for _, de := range entries {
			if de.IsDir() {
				continue
			}
			name := filepath.Join(sub, de.Name())
			if err := os.Link(filepath.Join(path, name), filepath.Join(dir, name)); err != nil {
				return nil, errors.Join(fmt.Errorf("keep the store before rebuilding its MANIFEST: %w", err), rb.discard())
			}
			rb.files[name] = true
		}
	}
	return rb, nil
}

// restore puts the store back as it was kept: files the repairer made are
// removed, the kept ones put back in place.
func (rb *rollback) restore() error {
	for _, sub := range []string{"", "lost"} {
		entries, _ := os.ReadDir(filepath.Join(rb.path, sub))
		for _, de := range entries {
			if name := filepath.Join(sub, de.Name()); !de.IsDir() && !rb.files[name] {
				if err := os.Remove(filepath.Join(rb.path, name)); err != nil {
					return fmt.Errorf("undo the failed rebuild: %w", err)
				}
			}
		}
	}
	for name := range rb.files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(rb.path, name)), 0o755); err != nil {
			return fmt.Errorf("undo the failed rebuild: %w", err)
		}
		if err := os.Rename(filepath.Join(rb.dir, name), filepath.Join(rb.path, name)); err != nil {
			return fmt.Errorf("undo the failed rebuild: %w", err)
		}
	}
	return rb.discard()
}

// discard removes the kept links.
func (rb *rollback) discard() error { return os.RemoveAll(rb.dir) }
