package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/ledger"
)

// A replicated engine (etcd) compacts through a quorum of its members: a
// member that is down cannot rewrite its files, which may still hold the
// erased bytes, and the engine says which (storage.CompactPendingError).
// The erasure does not wait for it: the deletion is done and recorded,
// the history is compacted, every read through the quorum verifies, and
// the ledger entry names the members still pending (Entry.Pending). The
// command says so. Resume, which every command runs when it opens the
// store, compacts again and clears the members once they are back.

// finishing is the tail every erasure and redaction runs after its
// deletion is committed: compact what it deleted, one step of its own
// (then), verify, and mark the ledger entry verified, each step followed by
// its done hook so that a crash can be injected after any of them.
type finishing struct {
	what   string              // the operation, for progress and errors
	target string              // what is compacted, for progress
	ranges []storage.ScanRange // the ranges compacted
	then   func() error        // the step after compaction
	step   EraseStep           // then's step
	verify func() error        // nil once nothing erased remains
	proof  string              // what a passed verification printed
}

// run runs the tail for en; en is updated only once it is marked verified.
func (f finishing) run(e storage.Engine, en *ledger.Entry, opts EraseOptions) error {
	pending, err := compact(e, f.ranges, f.what, f.target, opts)
	if err != nil {
		return err
	}
	if err := done(StepCompact); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	if err := f.then(); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	if err := done(f.step); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	if err := f.verify(); err != nil {
		return fmt.Errorf("%s: verify: %w", f.what, err)
	}
	opts.progress("%s: %s", f.what, f.proof)
	if err := done(StepVerify); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	verified := *en
	if err := markVerified(e, &verified, pending); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	*en = verified
	if err := done(StepMarkVerified); err != nil {
		return fmt.Errorf("%s: %w", f.what, err)
	}
	return nil
}

// compact compacts rs (described as target) for the erasure what,
// printing progress, and returns the members a replicated engine could not
// yet compact on; any other failure is an error.
func compact(e storage.Engine, rs []storage.ScanRange, what, target string, opts EraseOptions) ([]string, error) {
	opts.progress("%s: compacting %s", what, target)
	start := time.Now()
	err := storage.Compact(e, rs)
	var pending *storage.CompactPendingError
	switch {
	case errors.As(err, &pending):
		opts.progress("%s: compacted through a quorum in %v; members %v have not rewritten their files yet: %v",
			what, time.Since(start).Round(time.Millisecond), pending.Members, pending.Err)
		return pending.Members, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	opts.progress("%s: compacted in %v", what, time.Since(start).Round(time.Millisecond))
	return nil, nil
}

// markVerified records in the ledger that en verified, now unless it was
// verified before, with the members pending; it writes only what changed.
func markVerified(e storage.Engine, en *ledger.Entry, pending []string) error {
	if !en.Verified.IsZero() && slices.Equal(en.Pending, pending) {
		return nil
	}
	if en.Verified.IsZero() {
		en.Verified = time.Now().UTC().Truncate(time.Microsecond)
	}
	en.Pending = pending
	return ledger.MarkVerified(e, *en)
}

// finishPending compacts again what the verified entry en erased, for the
// members it names pending, and records the members still pending (none,
// once they are all back).
func finishPending(e storage.Engine, en ledger.Entry, opts EraseOptions) (ledger.Entry, error) {
	what := fmt.Sprintf("resume: erasure %s of %s %s", en.ID, en.Kind, en.Scope)
	rs := []storage.ScanRange{storage.SourceRows(en.Scope, en.Entity)}
	if en.Kind != ledger.KindRedaction {
		var err error
		if rs, err = en.Ranges(); err != nil {
			return en, fmt.Errorf("%s: %w", what, err)
		}
	}
	pending, err := compact(e, rs, what, fmt.Sprintf("%d ranges again", len(rs)), opts)
	if err != nil {
		return en, err
	}
	if err := markVerified(e, &en, pending); err != nil {
		return en, fmt.Errorf("%s: %w", what, err)
	}
	return en, nil
}
