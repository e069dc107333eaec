package lifecycle

import (
	"errors"
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/sources"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// EraseEntity erases entity id of scope physically: a node or an edge.
// Of a node: every version and its two index rows, every adjacency row in
// both directions with its mirror under the other endpoint, every version
// of each incident edge, every vector row, the node's rows and row ids in
// the bitmap index, and every span row naming the node or one of those
// edges. Of an edge: every version and its two index rows, its adjacency
// row under each endpoint, and every span row naming it; the endpoints
// and their other edges stay. Span rows go in both shapes. Each subsystem
// adds its rows (temporal.AddNodeErasure and temporal.AddEdgeErasure,
// vector.AddNodeErasure, bitmap.Index.AddNodeErasure,
// sources.AddNodeErasure). The deletions and their ledger entry (one
// point range per row, a range for the vectors) are one durable batch;
// then the rows are compacted, caches dropped and every range verified
// empty, as for a tenant. Tombstones (temporal.Store.DeleteNode and
// DeleteEdge) remain the ordinary delete; this is the erasure. An id with
// no row in the tenant is ErrNotFound; an interrupted erasure is finished
// by Resume.
func EraseEntity(e storage.Engine, scope storage.TenantScope, id uuid.UUID, opts EraseOptions) (Erasure, error) {
	switch {
	case scope.IsZero():
		return Erasure{}, fmt.Errorf("erase entity: %w", storage.ErrNilScope)
	case id == uuid.Nil:
		return Erasure{}, fmt.Errorf("erase entity: %w: the nil id", ErrNotFound)
	}
	if _, ok := e.(storage.Compactor); !ok {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, storage.ErrCompactUnsupported)
	}
	var b storage.Batch
	if err := addEntityErasure(e, &b, scope, id); err != nil {
		return Erasure{}, err
	}
	if err := tenants.RequireWritable(e, &b, scope); err != nil {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, err)
	}
	en, err := ledger.NewEntry(ledger.KindEntity, scope, id)
	if err != nil {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, err)
	}
	if err := recordDeletions(e, &b, &en); err != nil {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, err)
	}
	rows, n := en.Rows()
	if rows == 0 {
		return Erasure{}, fmt.Errorf("erase entity %s of %s: %w", id, scope, ErrNotFound)
	}
	opts.progress("erase entity %s of %s: deleting %d rows (%d bytes)", id, scope, rows, n)
	if err := tenants.Refused(e, scope, ledger.Commit(e, &b, &en)); err != nil {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, err)
	}
	if err := done(StepDelete); err != nil {
		return Erasure{}, fmt.Errorf("erase entity %s: %w", id, err)
	}
	return finish(e, en, opts)
}

// addEntityErasure adds to b what every subsystem keeps of entity id, as
// a node and as an edge: each adds nothing for an id it does not hold, and
// an id that names both a node and an edge is erased as both.
func addEntityErasure(e storage.Engine, b *storage.Batch, scope storage.TenantScope, id uuid.UUID) error {
	node, err := temporal.AddNodeErasure(e, b, scope, id)
	if err != nil {
		return fmt.Errorf("erase entity %s: %w", id, err)
	}
	if _, err := temporal.AddEdgeErasure(e, b, scope, id); err != nil {
		return fmt.Errorf("erase entity %s: %w", id, err)
	}
	if _, err := vector.AddNodeErasure(e, b, scope, id); err != nil {
		return fmt.Errorf("erase entity %s: %w", id, err)
	}
	if _, err := sources.AddNodeErasure(e, b, scope, id, node.Edges...); err != nil {
		return fmt.Errorf("erase entity %s: %w", id, err)
	}
	if len(node.Labels) > 0 {
		if err := bitmap.New(e, bitmap.Options{}).AddNodeErasure(b, scope, id, node.Labels); err != nil {
			return fmt.Errorf("erase entity %s: %w", id, err)
		}
	}
	return b.Err()
}

// recordDeletions adds every deletion of b to en, once per key, with the
// rows and bytes it removes. Puts (posting lists rewritten without the
// entity) delete nothing and are not recorded.
func recordDeletions(r storage.Reader, b *storage.Batch, en *ledger.Entry) error {
	seen := make(map[storage.Key]bool)
	for _, m := range b.All() {
		switch m.Kind {
		case storage.MutationDelete:
			if seen[m.Key] {
				continue
			}
			seen[m.Key] = true
			v, err := r.Get(m.Key)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				en.AddKey(m.Key, 0, 0)
			case err != nil:
				return err
			default:
				en.AddKey(m.Key, 1, uint64(m.Key.Len()+len(v)))
			}
		case storage.MutationDeleteRange:
			c, err := countRanges(r, []storage.ScanRange{m.Range})
			if err != nil {
				return err
			}
			en.Add(m.Range, c.Rows, c.Bytes)
		}
	}
	return nil
}
