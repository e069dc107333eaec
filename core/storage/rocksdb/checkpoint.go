package rocksdb

import "fmt"

// Checkpoint writes a consistent copy of the store to dir, which must not
// exist, with RocksDB's Checkpoint: table files are hard-linked when dir is
// on the same file system, copied otherwise. The memtables are flushed
// first (log_size_for_flush 0), so the copy does not depend on replaying a
// write-ahead log. The copy opens as a working store with Open.
func (e *Engine) Checkpoint(dir string) error {
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	cp, err := e.db.NewCheckpoint()
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", e.path, err)
	}
	defer cp.Destroy()
	if err := cp.CreateCheckpoint(dir, 0); err != nil {
		return fmt.Errorf("checkpoint %s to %s: %w", e.path, dir, err)
	}
	return nil
}
