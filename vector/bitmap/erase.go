package bitmap

import (
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// AddNodeErasure adds to b the removal of node id from the index of scope
// under each of labels (every label the node ever carried: see
// temporal.NodeErasure): its id map and rev map rows are deleted and its
// row id is taken out of every posting list, a posting left empty being
// deleted. Nothing is written here; the caller writes b durably.
func (ix *Index) AddNodeErasure(b *storage.Batch, scope storage.TenantScope, id uuid.UUID, labels []string) error {
	return ix.IndexNode(b, scope, &temporal.Version{ID: id, Labels: labels}, nil)
}
