package vector

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// AddNodeErasure adds to b the deletion of every vector row of node in
// scope, under every model and at every time: one range deletion
// (storage.NodeVectors). It returns the number of rows the range holds
// now. This is physical erasure, not Delete's tombstone: the caller writes
// b durably (telha.dev/lifecycle records it in the erasure ledger,
// compacts, and tells every Store on the engine to drop the tenant's
// in-memory indexes).
func AddNodeErasure(r storage.Reader, b *storage.Batch, scope storage.TenantScope, node uuid.UUID) (int, error) {
	if scope.IsZero() {
		return 0, fmt.Errorf("erase vectors of %s: %w", node, storage.ErrNilScope)
	}
	rg := storage.NodeVectors(scope, node)
	n := 0
	for _, err := range r.Scan(rg) {
		if err != nil {
			return 0, fmt.Errorf("erase vectors of %s: %w", node, err)
		}
		n++
	}
	b.DeleteRange(rg)
	return n, b.Err()
}
