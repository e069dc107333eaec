package rocksdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// defaultFamily is the family RocksDB creates in every store. Telha writes
// nothing to it, but RocksDB requires it to be opened.
const defaultFamily = "default"

// Open opens the store at cfg.Path, or creates it when cfg.CreateIfMissing
// allows. The directory is checked before RocksDB touches it, so that every
// failure is a typed error and nothing is created or left open: ErrNotExist,
// ErrLocked, ErrNotStore, ErrMissingFamily, ErrUnexpectedFamily.
func Open(cfg Config) (*Engine, error) {
	if cfg.Path == "" {
		return nil, fmt.Errorf("open: empty path: %w", ErrNotExist)
	}
	create, err := checkStore(cfg)
	if err != nil {
		return nil, err
	}
	opts, err := newOptions(cfg, create)
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
		return nil, fmt.Errorf("open %s: %w", cfg.Path, err)
	}
	return newEngine(cfg, db, handles, families), nil
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
