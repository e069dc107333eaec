package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"telha.dev/core/durable"
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
// erased bytes leave the copy's files, each replayed entry is verified
// against the copy (a tenant's rows all gone, an entity's, a blob's ranges
// redacted), and only then are tenants marked erased and the work
// directory renamed to the new store's path. An entry that would leave
// rows is refused (ErrBadLedger), and so, unless RestoreOptions says
// otherwise, is an entry of another deployment (ErrForeignLedger): a
// refused restore removes its work directory and makes no store. A
// restore killed at any point leaves no store at that path, only the work
// directory, which the next Restore removes and starts again: nothing can
// serve a store whose replay did not finish.

// restoringSuffix names the work directory of a restore into dir.
const restoringSuffix = ".restoring"

// Errors of restore.
var (
	// ErrRestoreTarget reports directories a restore must not use: a new
	// store path that exists, a checkpoint that is not a RocksDB store's
	// directory of regular files, or is a restore's work directory, or
	// directories that overlap (the new store inside the checkpoint, the
	// checkpoint inside the new store or its work directory, the ledger
	// inside the checkpoint).
	ErrRestoreTarget = errors.New("bad restore directory")

	// ErrBadLedger reports a ledger file or entry that does not decode,
	// is damaged or forged, or whose replay leaves rows it claims to have
	// erased. It is ledger.ErrBadEntry.
	ErrBadLedger = ledger.ErrBadEntry

	// ErrForeignLedger reports a ledger entry of another deployment than
	// the checkpoint's, or one of a checkpoint or an entry that names no
	// deployment (RestoreOptions.ForeignLedger replays them).
	ErrForeignLedger = ledger.ErrForeign
)

// RestoreOptions tune a restore.
type RestoreOptions struct {
	EraseOptions
	// ForeignLedger replays entries of other deployments than the
	// checkpoint's, and entries or a checkpoint that name none (written
	// before entries named their deployment), which are refused
	// otherwise.
	ForeignLedger bool
}

// Restored is what a restore did.
type Restored struct {
	Replayed []ledger.Entry // the entries the checkpoint lacked, replayed
	Skipped  int            // entries the checkpoint already held
}

// Restore restores the RocksDB checkpoint in checkpointDir as a new store
// in newDir, which must not exist, replaying every entry of entries that
// the checkpoint's own ledger lacks. See the comment at the head of this
// file.
func Restore(checkpointDir, newDir string, entries []ledger.Entry, opts RestoreOptions) (Restored, error) {
	if err := checkRestoreDirs(checkpointDir, newDir); err != nil {
		return Restored{}, fmt.Errorf("restore %s into %s: %w", checkpointDir, newDir, err)
	}
	if err := checkCheckpoint(checkpointDir, entries, opts); err != nil {
		return Restored{}, fmt.Errorf("restore %s: %w", checkpointDir, err)
	}
	work := filepath.Clean(newDir) + restoringSuffix
	if err := os.RemoveAll(work); err != nil {
		return Restored{}, fmt.Errorf("restore: remove an interrupted restore: %w", err)
	}
	res, err := restoreInto(checkpointDir, work, entries, opts)
	if err != nil {
		return Restored{}, errors.Join(err, os.RemoveAll(work))
	}
	if err := os.Rename(work, newDir); err != nil {
		return Restored{}, fmt.Errorf("restore: put the store in place: %w", err)
	}
	if err := durable.Sync(filepath.Dir(filepath.Clean(newDir))); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	if err := done(StepRestoreServe); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	opts.progress("restore: %s ready: %d ledger entries replayed, %d already in the checkpoint", newDir, len(res.Replayed), res.Skipped)
	return res, nil
}

// checkCheckpoint opens the checkpoint read-only, before anything is
// copied, and refuses a checkpoint that does not open and, unless opts say
// otherwise, entries it lacks that are of another deployment.
func checkCheckpoint(checkpointDir string, entries []ledger.Entry, opts RestoreOptions) error {
	e, err := rocksdb.Open(rocksdb.Config{Path: checkpointDir, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%w: the checkpoint does not open: %w", ErrRestoreTarget, err)
	}
	missing, _, err := missingEntries(e, entries)
	if err == nil && !opts.ForeignLedger {
		err = checkDeployment(e, missing)
	}
	return errors.Join(err, e.Close())
}

// missingEntries returns the entries that r's ledger lacks, and the
// number it holds.
func missingEntries(r storage.Reader, entries []ledger.Entry) (missing []ledger.Entry, held int, err error) {
	for _, en := range entries {
		if _, err := ledger.Get(r, en.ID); err == nil {
			held++
			continue
		} else if !errors.Is(err, ledger.ErrNotFound) {
			return nil, held, err
		}
		missing = append(missing, en)
	}
	return missing, held, nil
}

// restoreInto copies the checkpoint into work and replays entries there.
func restoreInto(checkpointDir, work string, entries []ledger.Entry, opts RestoreOptions) (Restored, error) {
	opts.progress("restore: copying %s", checkpointDir)
	src, err := filepath.EvalSymlinks(checkpointDir)
	if err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	if err := copyTree(src, work); err != nil {
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
	return res, err
}

// replay replays into e every entry that e's ledger lacks, then compacts
// what they deleted, verifies each against e, marks the erased tenants
// erased, and finishes the erasures the checkpoint caught half done
// (Resume).
func replay(e storage.Engine, entries []ledger.Entry, opts RestoreOptions) (Restored, error) {
	var res Restored
	missing, held, err := missingEntries(e, entries)
	if err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	res.Skipped = held
	if !opts.ForeignLedger {
		if err := checkDeployment(e, missing); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
	}
	var ranges []storage.ScanRange
	for _, en := range missing {
		rs, err := replayEntry(e, en, opts.EraseOptions)
		if err != nil {
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
		if err := verifyReplayed(e, en); err != nil {
			return res, fmt.Errorf("restore: %w", err)
		}
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
	if _, err := Resume(e, opts.EraseOptions); err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	return res, nil
}

// checkDeployment refuses (ErrForeignLedger) entries that are not of the
// deployment of e, and every entry if e names no deployment.
func checkDeployment(e storage.Reader, entries []ledger.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	own, ok, err := ledger.ReadDeployment(e)
	if err != nil {
		return err
	}
	for _, en := range entries {
		switch {
		case !ok:
			return fmt.Errorf("the checkpoint names no deployment, so ledger entry %s (deployment %s) cannot be told its own: %w", en.ID, en.Deployment, ErrForeignLedger)
		case en.Deployment == uuid.Nil:
			return fmt.Errorf("ledger entry %s names no deployment (the checkpoint is of %s): %w", en.ID, own, ErrForeignLedger)
		case en.Deployment != own:
			return fmt.Errorf("ledger entry %s is of deployment %s, the checkpoint of %s: %w", en.ID, en.Deployment, own, ErrForeignLedger)
		}
	}
	return nil
}

// replayEntry replays one entry into e and returns the ranges to compact.
func replayEntry(e storage.Engine, en ledger.Entry, opts EraseOptions) ([]storage.ScanRange, error) {
	rs, err := en.Ranges()
	if err != nil {
		return nil, err
	}
	rows, n := en.Rows()
	opts.progress("restore: replaying erasure %s of %s %s (%d rows, %d bytes when erased)", en.ID, en.Kind, en.Scope, rows, n)
	if en.Kind == ledger.KindRedaction {
		if err := replayRedaction(e, en); err != nil {
			return nil, err
		}
		return []storage.ScanRange{storage.SourceRows(en.Scope, en.Entity)}, nil
	}
	if en.Kind == ledger.KindEntity {
		// The rows are deleted by the entry's bounds below; the
		// subsystems also take the entity out of what they rewrite
		// rather than delete (the bitmap index's posting lists), which
		// no bounds describe.
		var b storage.Batch
		if err := addEntityErasure(e, &b, en.Scope, en.Entity); err != nil {
			return nil, err
		}
		if err := e.WriteDurable(&b); err != nil {
			return nil, fmt.Errorf("erase entity %s: %w", en.Entity, err)
		}
	}
	if err := ledger.Replay(e, en); err != nil {
		return nil, err
	}
	return rs, nil
}

// verifyReplayed checks that the replayed entry en holds in e: no row of
// its tenant left in any family, no row of its entity left in any
// subsystem, its blob's ranges redacted (or the blob deleted). An entry
// that fails is ErrBadLedger: it claimed an erasure it does not make.
func verifyReplayed(e storage.Engine, en ledger.Entry) error {
	var left uint64
	switch en.Kind {
	case ledger.KindTenant:
		counts, err := Verify(e, en.Scope)
		if err != nil {
			return err
		}
		for _, c := range counts {
			left += c.Rows
		}
	case ledger.KindEntity:
		var b storage.Batch
		if err := addEntityErasure(e, &b, en.Scope, en.Entity); err != nil {
			return err
		}
		remains := ledger.Entry{Kind: ledger.KindEntity, Scope: en.Scope, Entity: en.Entity}
		if err := recordDeletions(e, &b, &remains); err != nil {
			return err
		}
		left, _ = remains.Rows()
	case ledger.KindRedaction:
		if err := checkRedacted(sources.Open(e, sources.Options{}), en); err != nil {
			return fmt.Errorf("ledger entry %s: replayed, blob %s of %s: %w: %w", en.ID, en.Entity, en.Scope, ErrBadLedger, err)
		}
	}
	if left != 0 {
		return fmt.Errorf("ledger entry %s: replayed, the %s erasure of %s leaves %d rows: %w", en.ID, en.Kind, en.Scope, left, ErrBadLedger)
	}
	return nil
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
	if err := sources.Open(e, sources.Options{}).AddReplay(&b, en.Scope, en.Entity, rd.Ranges, rd.Deleted, rd.KeyedDigest, en.ID); err != nil {
		return fmt.Errorf("replay redaction %s: %w", en.ID, err)
	}
	return ledger.Commit(e, &b, &en)
}

// copyTree copies the regular files and directories of src into dst, which
// it creates, and syncs them, but for the checkpoint's mark. Anything else
// in src (a symbolic link, a FIFO, a device, a socket) is
// ErrRestoreTarget: a checkpoint holds none.
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
		case rel == checkpointMark:
			return nil // the restored store is a store, not a checkpoint
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := regular(path, info); err != nil {
			return fmt.Errorf("%w: %w", ErrRestoreTarget, err)
		}
		return copyFile(path, target)
	})
}

// copyFile copies one file and syncs the copy.
func copyFile(src, dst string) error {
	in, err := OpenInput(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return durable.Create(dst, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
