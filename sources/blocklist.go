package sources

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/blocklist"
)

// blocklistKeyer returns the keyer of the deployment's blocklist secret,
// reading or creating the secret on first use.
func (s *Store) blocklistKeyer() (*blocklist.Keyer, error) {
	s.keyerMu.Lock()
	defer s.keyerMu.Unlock()
	if s.keyer == nil {
		k, err := blocklist.Open(s.engine)
		if err != nil {
			return nil, err
		}
		s.keyer = k
	}
	return s.keyer, nil
}

// checkBlocklist returns ErrBlocklisted if r holds the blocklist row of
// keyed digest d in tenant scope.
func checkBlocklist(r storage.Reader, scope storage.TenantScope, d [blocklist.SecretLen]byte) error {
	v, err := r.Get(storage.BlocklistKey(scope, d[:]))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("blocklist: %w", err)
	}
	row, err := decodeBlockRow(v)
	if err != nil {
		return fmt.Errorf("%w (the blocklist row does not decode: %w)", ErrBlocklisted, err)
	}
	what := "redaction"
	if row.kind == blockDelete {
		what = "deletion"
	}
	return fmt.Errorf("%w: by the %s of ledger entry %s at %s", ErrBlocklisted, what, row.entry, row.when)
}
