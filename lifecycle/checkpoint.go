package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"telha.dev/core/durable"
	"telha.dev/core/storage"
)

// A checkpoint is a backup: no command may change it. RocksDB's own
// checkpoint is a store that opens read-write like any other, and a
// read-write open writes (a new log, a new MANIFEST, the sync mark, the
// erasures Resume finishes). Checkpoint therefore marks the checkpoints it
// writes, with a file the store itself never has, and the telha command
// refuses to open a marked directory as a store: a
// checkpoint is read only by Restore, which copies it, and by ReadLedger,
// which opens it read-only; nothing is written inside one
// (CheckOutsideCheckpoints). A restored store is copied without the mark.

// checkpointMark is the file that marks a checkpoint.
const checkpointMark = "TELHA-CHECKPOINT"

// ErrCheckpoint reports a directory that is a checkpoint where a store is
// wanted.
var ErrCheckpoint = errors.New("the directory is a checkpoint, which is never opened as a store")

// Checkpoint writes a checkpoint of e into dir (Engine.Checkpoint: dir
// must not exist) and marks it as one, durably.
func Checkpoint(e storage.Engine, dir string) error {
	if err := e.Checkpoint(dir); err != nil {
		return err
	}
	mark := []byte("a checkpoint written by telha checkpoint: restore it with telha restore -from; it is never opened as a store\n")
	if err := durable.CreateFile(filepath.Join(dir, checkpointMark), mark, 0o444); err != nil {
		return fmt.Errorf("mark the checkpoint %s: %w", dir, err)
	}
	return nil
}

// CheckOutsideCheckpoints returns ErrCheckpoint if path is a marked
// checkpoint or lies inside one (the file system's parents of its
// absolute form, links followed): nothing is opened as a store, or
// written, there.
func CheckOutsideCheckpoints(path string) error {
	abs, err := resolve(path)
	if err != nil {
		return err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, checkpointMark)); err == nil {
			if dir == abs {
				return fmt.Errorf("%s: %w (restore it with telha restore -from %s)", path, ErrCheckpoint, path)
			}
			return fmt.Errorf("%s lies inside the checkpoint %s: %w", path, dir, ErrCheckpoint)
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}
