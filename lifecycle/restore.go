package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/sources"
)

// A restore brings a RocksDB checkpoint back as a store, without bringing
// back what was erased after the checkpoint was taken. The checkpoint is
// copied (never changed, never linked: its files stay the backup they
// are) into a work directory beside the new store's, every ledger entry
// the copy's own ledger lacks is replayed (ledger.Replay: the stored
// bounds, re-checked against the entry's tenant, deleted in one durable
// batch with the entry), the replayed ranges are compacted so that the
// erased bytes leave the copy's files, and only then is the work
// directory renamed to the new store's path. A restore killed at any
// point leaves no store at that path, only the work directory, which the
// next Restore removes and starts again: nothing can serve a store whose
// replay did not finish.

// restoringSuffix names the work directory of a restore into dir.
const restoringSuffix = ".restoring"

// ErrRestoreTarget reports a new store path that exists, or a checkpoint
// that is not a directory.
var ErrRestoreTarget = errors.New("bad restore directory")

// Restored is what a restore did.
type Restored struct {
	Replayed []ledger.Entry // the entries the checkpoint lacked, replayed
	Skipped  int            // entries the checkpoint already held
}

// Restore restores the RocksDB checkpoint in checkpointDir as a new store
// in newDir, which must not exist, replaying every entry of entries that
// the checkpoint's own ledger lacks. See the comment at the head of this
// file.
func Restore(checkpointDir, newDir string, entries []ledger.Entry, opts EraseOptions) (Restored, error) {
	if fi, err := os.Stat(checkpointDir); err != nil || !fi.IsDir() {
		return Restored{}, fmt.Errorf("restore %s: %w: not a directory (%v)", checkpointDir, ErrRestoreTarget, err)
	}
	if _, err := os.Lstat(newDir); !errors.Is(err, fs.ErrNotExist) {
		return Restored{}, fmt.Errorf("restore into %s: %w: it exists (%v)", newDir, ErrRestoreTarget, err)
	}
	work := filepath.Clean(newDir) + restoringSuffix
	if err := os.RemoveAll(work); err != nil {
		return Restored{}, fmt.Errorf("restore: remove an interrupted restore: %w", err)
	}
	opts.progress("restore: copying %s", checkpointDir)
	if err := copyTree(checkpointDir, work); err != nil {
		return Restored{}, fmt.Errorf("restore: copy %s: %w", checkpointDir, err)
	}
	if err := done(StepRestoreCopy); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	e, err := rocksdb.Open(rocksdb.Config{Path: work})
	if err != nil {
		return Restored{}, fmt.Errorf("restore: open the copy of %s: %w", checkpointDir, err)
	}
	res, err := replay(e, entries, opts)
	if closeErr := e.Close(); err == nil && closeErr != nil {
		err = fmt.Errorf("restore: close: %w", closeErr)
	}
	if err != nil {
		return Restored{}, err
	}
	if err := os.Rename(work, newDir); err != nil {
		return Restored{}, fmt.Errorf("restore: put the store in place: %w", err)
	}
	if err := syncDir(filepath.Dir(filepath.Clean(newDir))); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	if err := done(StepRestoreServe); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	opts.progress("restore: %s ready: %d ledger entries replayed, %d already in the checkpoint", newDir, len(res.Replayed), res.Skipped)
	return res, nil
}

// replay replays into e every entry that e's ledger lacks, then compacts
// what they deleted, marks the erased tenants erased, and finishes the
// erasures the checkpoint caught half done (Resume).
func replay(e storage.Engine, entries []ledger.Entry, opts EraseOptions) (Restored, error) {
	var res Restored
	var ranges []storage.ScanRange
	for _, en := range entries {
		if _, err := ledger.Get(e, en.ID); err == nil {
			res.Skipped++
			continue
		} else if !errors.Is(err, ledger.ErrNotFound) {
			return res, fmt.Errorf("restore: %w", err)
		}
		rs, err := en.Ranges()
		if err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
		rows, n := en.Rows()
		opts.progress("restore: replaying erasure %s of %s %s (%d rows, %d bytes when erased)", en.ID, en.Kind, en.Scope, rows, n)
		if en.Kind == ledger.KindRedaction {
			if err := replayRedaction(e, en); err != nil {
				return res, fmt.Errorf("restore: %w", err)
			}
			if err := done(StepRestoreReplay); err != nil {
				return res, fmt.Errorf("restore: %w", err)
			}
			ranges = append(ranges, storage.SourceRows(en.Scope, en.Entity))
			res.Replayed = append(res.Replayed, en)
			continue
		}
		if en.Kind == ledger.KindEntity {
			// The rows are deleted by the entry's bounds below; the
			// subsystems also take the entity out of what they rewrite
			// rather than delete (the bitmap index's posting lists),
			// which no bounds describe.
			var b storage.Batch
			if err := addEntityErasure(e, &b, en.Scope, en.Entity); err != nil {
				return res, fmt.Errorf("restore: %w", err)
			}
			if err := e.WriteDurable(&b); err != nil {
				return res, fmt.Errorf("restore: erase entity %s: %w", en.Entity, err)
			}
		}
		if err := ledger.Replay(e, en); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
		if err := done(StepRestoreReplay); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
		ranges = append(ranges, rs...)
		res.Replayed = append(res.Replayed, en)
	}
	if len(ranges) > 0 {
		opts.progress("restore: compacting %d replayed ranges", len(ranges))
		if err := storage.Compact(e, ranges); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
	}
	if err := done(StepRestoreCompact); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	for _, en := range res.Replayed {
		if en.Kind == ledger.KindTenant {
			if err := markErased(e, en.Scope); err != nil {
				return res, fmt.Errorf("restore: %w", err)
			}
		}
	}
	// A checkpoint taken during an erasure holds its deletion and an
	// entry not yet verified: finish it in the copy too.
	if _, err := Resume(e, opts); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	return res, nil
}

// replayRedaction writes, in one durable batch with the entry, what the
// redaction entry en did to its blob, against whatever e holds of it
// (sources.Store.AddReplay): the chunks rewritten or deleted and the
// record, unless e has them already or lacks the blob, and in every case
// the blocklist row of the text it took out. The entry is checked as it
// is written (ledger.Commit): one that is not a redaction and nothing
// else writes nothing.
func replayRedaction(e storage.Engine, en ledger.Entry) error {
	if _, err := en.Ranges(); err != nil {
		return fmt.Errorf("replay redaction: %w", err)
	}
	var b storage.Batch
	rd := en.Redaction
	if err := sources.Open(e, sources.Options{}).AddReplay(&b, en.Scope, en.Entity, sourceRanges(rd.Ranges), rd.Deleted, rd.KeyedDigest, en.ID); err != nil {
		return fmt.Errorf("replay redaction %s: %w", en.ID, err)
	}
	return ledger.Commit(e, &b, en)
}

// copyTree copies the regular files and directories of src into dst, which
// it creates, and syncs them.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file", path)
		}
		return copyFile(path, target)
	})
}

// copyFile copies one file and syncs the copy.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	if err := out.Sync(); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
