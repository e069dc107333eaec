// Package durable writes files that a crash leaves whole or absent, never
// torn, and syncs the directories that name them: the memory engine's
// checkpoint, the etcd engine's checkpoint manifest and cluster layout, the
// checkpoint mark and the files a restore copies. It is the one place that
// knows the order (create, write, sync, close, rename, sync the directory);
// every module that writes a file a later run relies on uses it.
package durable

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through fill, by way of a temporary file in the same
// directory that is synced, renamed into place, and the directory synced:
// once Write returns nil, path holds what fill wrote and survives a crash;
// if it fails, path is as it was. fill's error is returned as it is.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	err = fill(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return Sync(filepath.Dir(path))
}

// WriteFile is Write of data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Create creates path, which must not exist, writes it through fill and
// syncs and closes it. It does not sync the directory, so that a caller
// creating many files (a restore's copy) syncs it once with Sync; a caller
// creating one file uses CreateFile. On failure the file may be left
// partial: callers create into a directory they remove on failure, or
// whose partial file they tell apart.
func Create(path string, perm os.FileMode, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// CreateFile creates path, which must not exist, with data, syncs it and
// then syncs its directory, so that both the file and its name survive a
// crash.
func CreateFile(path string, data []byte, perm os.FileMode) error {
	err := Create(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return Sync(filepath.Dir(path))
}

// Sync syncs a file or a directory, so that a directory's entries (files
// created, renamed or removed in it) survive a crash.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
