package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/lifecycle"
)

// Every command that uses the RocksDB store at -data opens it here, and
// only here: the path is checked before anything is created; the store is
// opened, or created where the command may create one (tenant provision,
// source put); and lifecycle.Resume runs before the command reads or
// writes anything, so that every command, reads included, first finishes
// the erasures and redactions a crash interrupted and undoes the imports
// it cut short. A store the command created is removed again if the
// command fails: a refused command leaves nothing behind.

// store is the RocksDB store a command opened at -data.
type store struct {
	*rocksdb.Engine
	dir string
	// created says the command created the store: the directory was
	// missing (made) or empty.
	created, made bool
}

// openStore opens the store at dir for the command cmd (its name, for
// messages and progress lines on stderr), creating it if create and it is
// missing or empty, and runs lifecycle.Resume on it.
func openStore(cmd, dir string, create bool, stderr io.Writer) (*store, error) {
	state, err := checkDataDir(cmd, dir, create)
	if err != nil {
		return nil, err
	}
	e, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: create})
	if err != nil {
		return nil, openError(cmd, dir, err)
	}
	s := &store{Engine: e, dir: dir, created: state != dirExisting, made: state == dirMissing}
	if err := resume(cmd, e, stderr); err != nil {
		return nil, s.close(err)
	}
	return s, nil
}

// close closes the store and returns err, the command's result, joined
// with a failure to close; a store the command created is removed when err
// is not nil.
func (s *store) close(err error) error {
	if closeErr := s.Engine.Close(); closeErr != nil && err == nil {
		err = fmt.Errorf("close the store: %w", closeErr)
	}
	if err != nil && s.created {
		err = errors.Join(err, removeCreated(s.dir, s.made))
	}
	return err
}

// resume runs lifecycle.Resume on e, printing its progress lines as cmd's.
func resume(cmd string, e storage.Engine, stderr io.Writer) error {
	if _, err := lifecycle.Resume(e, lifecycle.EraseOptions{Progress: progressTo(cmd, stderr)}); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}

// openError classifies a failure of rocksdb.Open: a path that holds no
// store of ours, or a store that is damaged (telha repair is for those), is
// refused input; a store in use or a full device is an operation that
// failed.
func openError(cmd, dir string, err error) error {
	switch {
	case errors.Is(err, rocksdb.ErrLocked), errors.Is(err, storage.ErrNoSpace):
		return fmt.Errorf("%s: %w", cmd, err)
	case errors.Is(err, storage.ErrCorrupt):
		return usagef("%s: the store at %s is damaged (telha repair -data %s makes it open, reporting what it drops): %w", cmd, dir, dir, err)
	}
	return usagef("%s: unusable data directory: %w", cmd, err)
}

// dirState is what a command finds at -data before it opens the store.
type dirState int

const (
	dirExisting dirState = iota // a directory with files in it
	dirEmpty                    // an empty directory
	dirMissing                  // nothing
)

// checkDataDir refuses a -data that cannot hold the store: not a
// directory, a checkpoint or a path inside one
// (lifecycle.CheckOutsideCheckpoints: no command writes into one), not writable (a read-only file system, no
// permission), or missing when the command does not create one; a
// directory to create needs a writable parent directory.
func checkDataDir(cmd, dir string, create bool) (dirState, error) {
	if dir == "" {
		return 0, usagef("%s: missing -data DIR", cmd)
	}
	if err := lifecycle.CheckOutsideCheckpoints(dir); err != nil {
		return 0, fmt.Errorf("%s: %w", cmd, err)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return 0, usagef("%s: no store at %s", cmd, dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := checkWritableParent(dir); err != nil {
			return 0, usagef("%s: cannot create a store at %s: %v", cmd, dir, err)
		}
		return dirMissing, nil
	case err != nil:
		return 0, usagef("%s: unusable data directory: %v", cmd, err)
	case !fi.IsDir():
		return 0, usagef("%s: no store at %s: not a directory", cmd, dir)
	}
	if err := writable(dir); err != nil {
		return 0, usagef("%s: unusable data directory %s: %v", cmd, dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, usagef("%s: unusable data directory: %v", cmd, err)
	}
	if len(entries) == 0 {
		return dirEmpty, nil
	}
	return dirExisting, nil
}

// checkNewPath refuses an output path (a checkpoint, an export, a ledger
// file) that exists, whose parent is not a writable directory, or that
// lies inside the store at dataDir or inside a checkpoint.
func checkNewPath(cmd, flag, path, dataDir string) error {
	if path == "" {
		return usagef("%s: missing %s", cmd, flag)
	}
	if _, err := os.Lstat(path); err == nil {
		return usagef("%s: %s %s exists; it is never overwritten", cmd, flag, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return usagef("%s: %s %s: %v", cmd, flag, path, err)
	}
	if err := checkWritableParent(path); err != nil {
		return usagef("%s: %s %s: %v", cmd, flag, path, err)
	}
	if err := lifecycle.CheckOutsideCheckpoints(path); err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, flag, err)
	}
	if inside, err := lifecycle.Within(path, dataDir); err != nil || inside {
		return usagef("%s: %s %s lies inside the store %s (%v)", cmd, flag, path, dataDir, err)
	}
	return nil
}

// checkWritableParent checks that the parent of path is a directory this
// process may create files in.
func checkWritableParent(path string) error {
	parent := filepath.Dir(filepath.Clean(path))
	fi, err := os.Stat(parent)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", parent)
	}
	return writable(parent)
}

// accessWrite is W_OK of access(2) (unistd.h), which package syscall does
// not name.
const accessWrite = 0x2

// writable checks that this process may create files in dir: the file
// system is not read-only and the permissions allow it.
func writable(dir string) error {
	if err := syscall.Access(dir, accessWrite); err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return nil
}

// removeCreated removes the store a failed command created at dir: the
// directory itself if the command made it, and otherwise what it put in
// the directory, which was empty.
func removeCreated(dir string, made bool) error {
	if made {
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, de := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, de.Name())))
	}
	return errors.Join(errs...)
}

// progressTo prints the progress lines of cmd on w (stderr); a line that
// names cmd already is not prefixed with it again.
func progressTo(cmd string, w io.Writer) func(string, ...any) {
	return func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if !strings.HasPrefix(line, cmd+":") {
			line = cmd + ": " + line
		}
		fmt.Fprintf(w, "telha: %s\n", line)
	}
}

// resolveTenant resolves -scope, TENANT:ORG or a display name, in the
// registry of r, and describes the tenant for a message: its name and
// state, or that the registry does not hold it.
func resolveTenant(cmd string, r storage.Reader, arg string) (lifecycle.Tenant, string, error) {
	t, known, err := lifecycle.Lookup(r, arg)
	if err != nil {
		return lifecycle.Tenant{}, "", fmt.Errorf("%s: %w", cmd, err)
	}
	switch {
	case !known:
		return t, "not in the tenant registry", nil
	case t.Name == "":
		return t, t.State.String(), nil
	}
	return t, fmt.Sprintf("%q, %s", t.Name, t.State), nil
}
