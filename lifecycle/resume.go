package lifecycle

import (
	"fmt"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
)

// Resume finishes the work a crash or an error interrupted in e, before
// the store serves anything: each ledger entry not yet verified (an
// erasure or a redaction) is compacted, forgotten, verified and recorded
// again; each entry whose members of a replicated engine were not all
// compacted is compacted again, and the members still pending recorded
// (see compact.go); each tenant the registry marks erasing is erased; each tenant it
// marks importing is wiped and marked active and empty again (see
// Import). It also gives a store that has none its deployment id
// (ledger.Deployment), which its checkpoints and their restores keep.
// Every telha command that opens a store runs it first, reads included.
// It returns the erasures it finished.
func Resume(e storage.Engine, opts EraseOptions) ([]Erasure, error) {
	// Every store names its deployment from its first open on, so that
	// its checkpoints do too (ledger.Deployment).
	if _, err := ledger.Deployment(e); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	var pending, undefragmented []ledger.Entry
	verified := make(map[storage.TenantScope]bool)
	for en, err := range ledger.Entries(e) {
		if err != nil {
			return nil, fmt.Errorf("resume erasures: %w", err)
		}
		switch {
		case en.Verified.IsZero():
			pending = append(pending, en)
		case len(en.Pending) > 0:
			undefragmented = append(undefragmented, en)
		}
		if !en.Verified.IsZero() && en.Kind == ledger.KindTenant {
			verified[en.Scope] = true
		}
	}
	var out []Erasure
	for _, en := range undefragmented {
		en, err := finishPending(e, en, opts)
		if err != nil {
			return out, fmt.Errorf("resume erasures: %w", err)
		}
		out = append(out, Erasure{Entry: en})
	}
	for _, en := range pending {
		opts.progress("resume: finishing erasure %s of %s %s", en.ID, en.Kind, en.Scope)
		er, err := finish(e, en, opts)
		if err != nil {
			return out, fmt.Errorf("resume erasures: %w", err)
		}
		out = append(out, er)
	}
	erasing, err := tenantsIn(e, tenants.Erasing)
	if err != nil {
		return out, fmt.Errorf("resume erasures: %w", err)
	}
	for _, scope := range erasing {
		if verified[scope] {
			// Erased and verified; only the registry's mark was missing.
			if err := markErased(e, scope); err != nil {
				return out, fmt.Errorf("resume erasures: %w", err)
			}
			continue
		}
		opts.progress("resume: erasing tenant %s, marked erasing", scope)
		er, err := EraseTenant(e, scope, opts)
		if err != nil {
			return out, fmt.Errorf("resume erasures: %w", err)
		}
		out = append(out, er)
	}
	undone, err := resumeImports(e)
	for _, scope := range undone {
		opts.progress("resume: wiped the rows of the interrupted import into tenant %s; it is active and empty again", scope)
	}
	if err != nil {
		return out, fmt.Errorf("resume an interrupted import: %w", err)
	}
	return out, nil
}
