// Package durable writes files that a crash leaves whole or absent, never
// torn: the etcd engine's checkpoint manifest and the cluster's layout.
package durable

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path through a temporary file in the same
// directory, synced, renamed into place, and the directory synced: once it
// returns, path holds data and survives a crash; if it fails, path is as it
// was.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
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

// Sync syncs a file or a directory, so that a directory's entries (files
// created, renamed or removed in it) survive a crash.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
