package lifecycle

import (
	"errors"
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/credentials"
	"telha.dev/core/storage/system/ledger"
)

// A tenant erasure is physical: every row of the tenant is range-deleted
// in every family, the engine compacts exactly those ranges so that the
// bytes leave its files, every subsystem opened on the engine drops what
// it caches for the tenant, and one TenantAll pass per family must count
// zero. The ledger entry that records the deletion (the bounds, the rows
// and bytes per family) is written in the same durable batch as the range
// deletions, so a deletion never happens unrecorded, and an entry that is
// not yet verified marks an erasure to finish: Resume finishes it.

// EraseStep names the steps of an erasure, in order.
type EraseStep uint8

// The steps of an erasure.
const (
	StepMarkErasing  EraseStep = iota + 1 // the tenant marked erasing in the registry
	StepDelete                            // the range deletions and the ledger entry, one durable batch
	StepCompact                           // the engine compacts the deleted ranges
	StepForget                            // every subsystem drops what it caches of the tenant
	StepVerify                            // one TenantAll pass per family counts zero
	StepMarkVerified                      // the ledger entry records the verification
	StepMarkErased                        // the tenant marked erased in the registry

	StepRestoreCopy    // the checkpoint copied into the restore's work directory
	StepRestoreReplay  // one ledger entry replayed (after each)
	StepRestoreCompact // the replayed ranges compacted
	StepRestoreServe   // the work directory renamed to the new store's

	StepEraseFacts // a redaction's overlapping facts erased (RedactOptions.EraseFacts)
)

var stepNames = [...]string{
	StepMarkErasing:  "mark erasing",
	StepDelete:       "delete",
	StepCompact:      "compact",
	StepForget:       "forget caches",
	StepVerify:       "verify",
	StepMarkVerified: "record verification",
	StepMarkErased:   "mark erased",

	StepRestoreCopy:    "copy the checkpoint",
	StepRestoreReplay:  "replay a ledger entry",
	StepRestoreCompact: "compact the replayed ranges",
	StepRestoreServe:   "put the restored store in place",

	StepEraseFacts: "erase the overlapping facts",
}

func (s EraseStep) String() string {
	if s < StepMarkErasing || s > StepEraseFacts {
		return fmt.Sprintf("EraseStep(%d)", uint8(s))
	}
	return stepNames[s]
}

// Errors of erasure.
var (
	// ErrNotErased reports a verification scan that still counted rows.
	ErrNotErased = errors.New("rows remain after erasure")

	// ErrNotFound reports an entity with no row in the tenant.
	ErrNotFound = errors.New("no such entity")
)

// afterStep, when set (by tests), runs after each step of an erasure or a
// restore and may fail it, as a crash right after the step would.
var afterStep func(EraseStep) error

// done reports step as done to the test hook.
func done(step EraseStep) error {
	if afterStep == nil {
		return nil
	}
	if err := afterStep(step); err != nil {
		return fmt.Errorf("after %s: %w", step, err)
	}
	return nil
}

// EraseOptions tune an erasure.
type EraseOptions struct {
	// Progress, if set, receives one line per step.
	Progress func(format string, args ...any)
}

func (o EraseOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// Erasure is what an erasure did.
type Erasure struct {
	// Entry is the ledger entry, verified. Entry.Pending names the
	// members of a replicated engine whose files may still hold the
	// erased bytes (see compact); Resume finishes them.
	Entry ledger.Entry
}

// EraseTenant erases every row of scope from e physically, records it in
// the ledger, and returns the entry. See the comment at the head of this
// file for the steps. A tenant the registry holds is marked Erasing before
// anything is deleted, and every subsystem's write to it is fenced on that
// row (tenants.RequireWritable): a write that checked the tenant before
// the mark, in any process, is refused rather than landing after the
// deletion. A scope the registry does not hold has no row to fence on:
// writes to it that run concurrently with the erasure may survive it, so
// quiesce it first. An engine that cannot
// compact (storage.ErrCompactUnsupported) is refused before anything is
// deleted.
//
// Interrupted at any step, by an error or a crash, the erasure is finished
// by Resume, or by calling EraseTenant again.
func EraseTenant(e storage.Engine, scope storage.TenantScope, opts EraseOptions) (Erasure, error) {
	if scope.IsZero() {
		return Erasure{}, fmt.Errorf("erase tenant: %w", storage.ErrNilScope)
	}
	if _, ok := e.(storage.Compactor); !ok {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, storage.ErrCompactUnsupported)
	}
	if err := markErasing(e, scope); err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	if err := done(StepMarkErasing); err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	en, err := ledger.NewEntry(ledger.KindTenant, scope, uuid.Nil)
	if err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	counts, err := Verify(e, scope)
	if err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	for i, r := range storage.TenantRanges(scope) {
		en.Add(r, counts[i].Rows, counts[i].Bytes)
	}
	rows, n := en.Rows()
	opts.progress("erase tenant %s: deleting %d rows (%d bytes) in %d families", scope, rows, n, len(counts))
	var work storage.Batch
	storage.AddTenantDeletion(&work, scope)
	if _, err := credentials.AddTenantDeletion(e, &work, scope); err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	if err := ledger.Commit(e, &work, &en); err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	if err := done(StepDelete); err != nil {
		return Erasure{}, fmt.Errorf("erase tenant %s: %w", scope, err)
	}
	return finish(e, en, opts)
}

// remains returns an error wrapping ErrNotErased if a row is left in rs.
func remains(r storage.Reader, rs []storage.ScanRange) error {
	left, err := countRanges(r, rs)
	if err != nil {
		return err
	}
	if left.Rows != 0 {
		return fmt.Errorf("%d rows (%d bytes) remain: %w", left.Rows, left.Bytes, ErrNotErased)
	}
	return nil
}

// finish runs the steps of an erasure after its deletion: compaction,
// caches, verification, and the records of both. A redaction has steps of
// its own (finishRedaction).
func finish(e storage.Engine, en ledger.Entry, opts EraseOptions) (Erasure, error) {
	if en.Kind == ledger.KindRedaction {
		r, err := finishRedaction(e, en, opts)
		return Erasure{Entry: r.Entry}, err
	}
	what := fmt.Sprintf("erase %s %s", en.Kind, en.Scope)
	if en.Kind == ledger.KindEntity {
		what = fmt.Sprintf("erase entity %s of %s", en.Entity, en.Scope)
	}
	rs, err := en.Ranges()
	if err != nil {
		return Erasure{}, fmt.Errorf("%s: %w", what, err)
	}
	tail := finishing{
		what: what, target: fmt.Sprintf("%d ranges", len(rs)), ranges: rs,
		then: func() error { return storage.ForgetTenant(e, en.Scope) }, step: StepForget,
		verify: func() error { return remains(e, rs) }, proof: "verified: no row remains",
	}
	if err := tail.run(e, &en, opts); err != nil {
		return Erasure{}, err
	}
	if en.Kind == ledger.KindTenant {
		if err := markErased(e, en.Scope); err != nil {
			return Erasure{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := done(StepMarkErased); err != nil {
		return Erasure{}, fmt.Errorf("%s: %w", what, err)
	}
	return Erasure{Entry: en}, nil
}
