package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// runLockName is the lock file's name in $GOCACHE/telhavet, which the
// result cache's trim leaves alone: removing a held lock file would let the
// next run lock a new one.
const runLockName = "run.lock"

// lockRuns takes an exclusive lock (flock(2)) that keeps other telhavet
// runs on the same go command cache from running go vet while this one
// does, and returns the function that releases it; with the go command's
// cache off it takes none. A run that finds the lock held waits, and says
// so in the -x trace (with trace set).
//
// go vet keeps a package's result in the go command's cache as two
// entries, its facts and then its printed output, and takes a cached
// result whose output entry is missing for one that printed nothing. Two
// telhavet runs that analyze the same package with the same executable and
// flags at once share those entries, so the later could replay the
// earlier's facts before their output was stored, losing the package's
// findings and the inventory record that tells the driver its files were
// analyzed.
func lockRuns(gocache string, trace bool) (func() error, error) {
	if gocache == "" || gocache == "off" {
		return func() error { return nil }, nil
	}
	dir := filepath.Join(gocache, "telhavet")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("lock the go command cache: %w", err)
	}
	l := flock.New(filepath.Join(dir, runLockName))
	ok, err := l.TryLock()
	if err == nil && !ok {
		if trace {
			fmt.Fprintf(os.Stderr, "# waiting for another telhavet run on %s\n", gocache)
		}
		err = l.Lock()
	}
	if err != nil {
		return nil, fmt.Errorf("lock the go command cache: %w", err)
	}
	return l.Unlock, nil
}
