package lifecycle

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/sources"
)

// Plan is what an erasure or a redaction would take out of a store,
// worked out from the store as it is and changing nothing: a dry run
// (telha ... -dry-run). Families are the rows and bytes, keys and values,
// per family in family order, families it would not touch left out: of
// an erasure the rows it would delete, as its ledger entry will count
// them; of a redaction the rows it would rewrite or delete. Overlapping,
// of a redaction, are the passages that overlap what it takes out, with
// their facts.
type Plan struct {
	Families    []FamilyCount
	Overlapping []sources.Provenance
}

// Rows returns the plan's rows and bytes in all.
func (p Plan) Rows() (rows, bytes uint64) {
	for _, c := range p.Families {
		rows += c.Rows
		bytes += c.Bytes
	}
	return rows, bytes
}

// PlanTenantErasure is what EraseTenant would take: every row of scope.
func PlanTenantErasure(r storage.Reader, scope storage.TenantScope) (Plan, error) {
	counts, err := Verify(r, scope)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Families: slices.DeleteFunc(counts, func(c FamilyCount) bool { return c.Rows == 0 })}, nil
}

// PlanEntityErasure is what EraseEntity would take: the rows of entity
// id in scope that the erasure's batch names. An id with no row in the
// tenant is ErrNotFound, as for EraseEntity.
func PlanEntityErasure(e storage.Engine, scope storage.TenantScope, id uuid.UUID) (Plan, error) {
	switch {
	case scope.IsZero():
		return Plan{}, fmt.Errorf("plan entity erasure: %w", storage.ErrNilScope)
	case id == uuid.Nil:
		return Plan{}, fmt.Errorf("plan entity erasure: %w: the nil id", ErrNotFound)
	}
	var b storage.Batch
	if err := addEntityErasure(e, &b, scope, id); err != nil {
		return Plan{}, err
	}
	p, err := planBatch(e, &b, false)
	if err != nil {
		return Plan{}, fmt.Errorf("plan entity erasure %s: %w", id, err)
	}
	if rows, _ := p.Rows(); rows == 0 {
		return Plan{}, fmt.Errorf("erase entity %s of %s: %w", id, scope, ErrNotFound)
	}
	return p, nil
}

// PlanRedaction is what Redact would take out of blob in scope, with the
// same refusals (sources.ErrBadRange, ErrNoBlob, ErrDeleted).
func PlanRedaction(e storage.Engine, scope storage.TenantScope, blob uuid.UUID, ranges []storage.BlobRange) (Plan, error) {
	return planRedaction(e, scope, blob, func(s *sources.Store) (*sources.RedactionPlan, error) {
		return s.PlanRedaction(scope, blob, ranges)
	})
}

// PlanSourceDeletion is what DeleteSource would take out of blob.
func PlanSourceDeletion(e storage.Engine, scope storage.TenantScope, blob uuid.UUID) (Plan, error) {
	return planRedaction(e, scope, blob, func(s *sources.Store) (*sources.RedactionPlan, error) {
		return s.PlanDelete(scope, blob)
	})
}

// planRedaction counts the rows a redaction's plan rewrites or deletes.
func planRedaction(e storage.Engine, scope storage.TenantScope, blob uuid.UUID, plan func(*sources.Store) (*sources.RedactionPlan, error)) (Plan, error) {
	if scope.IsZero() {
		return Plan{}, fmt.Errorf("plan redaction: %w", storage.ErrNilScope)
	}
	rp, err := plan(sources.Open(e, sources.Options{}))
	if err != nil {
		return Plan{}, fmt.Errorf("plan redaction of blob %s of %s: %w", blob, scope, err)
	}
	var b storage.Batch
	if err := rp.AddTo(&b, uuid.New()); err != nil {
		return Plan{}, fmt.Errorf("plan redaction of blob %s: %w", blob, err)
	}
	p, err := planBatch(e, &b, true)
	if err != nil {
		return Plan{}, fmt.Errorf("plan redaction of blob %s: %w", blob, err)
	}
	p.Overlapping = rp.Overlapping()
	return p, nil
}

// planBatch counts, per family, the rows that exist now under the keys
// and ranges that b deletes, and with rewrites those it overwrites: each
// key once.
func planBatch(r storage.Reader, b *storage.Batch, rewrites bool) (Plan, error) {
	byFamily := make(map[storage.ColumnFamily]*FamilyCount)
	count := func(cf storage.ColumnFamily, c FamilyCount) {
		if c.Rows == 0 {
			return
		}
		fc := byFamily[cf]
		if fc == nil {
			fc = &FamilyCount{Family: cf}
			byFamily[cf] = fc
		}
		fc.Rows += c.Rows
		fc.Bytes += c.Bytes
	}
	seen := make(map[storage.Key]bool)
	for _, m := range b.All() {
		switch m.Kind {
		case storage.MutationDelete, storage.MutationPut:
			if seen[m.Key] || (m.Kind == storage.MutationPut && !rewrites) {
				continue
			}
			seen[m.Key] = true
			v, err := r.Get(m.Key)
			switch {
			case errors.Is(err, storage.ErrNotFound):
			case err != nil:
				return Plan{}, err
			default:
				count(m.Key.Family(), FamilyCount{Rows: 1, Bytes: uint64(m.Key.Len() + len(v))})
			}
		case storage.MutationDeleteRange:
			c, err := countRanges(r, []storage.ScanRange{m.Range})
			if err != nil {
				return Plan{}, err
			}
			count(m.Range.Family(), c)
		}
	}
	var p Plan
	for _, cf := range storage.Families() {
		if fc := byFamily[cf]; fc != nil {
			p.Families = append(p.Families, *fc)
		}
	}
	return p, nil
}
