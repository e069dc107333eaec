package temporal

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// historyRange is every version row of one entity, latest valid start first.
func historyRange(scope storage.TenantScope, kind EntityKind, id uuid.UUID) storage.ScanRange {
	if kind == EntityEdge {
		return storage.EdgeHistory(scope, id)
	}
	return storage.NodeHistory(scope, id)
}

// decodeVersionRow decodes one version row of family kind.Family().
func decodeVersionRow(kind EntityKind, kv storage.KV) (Version, error) {
	var p storage.VersionParts
	var err error
	if kind == EntityEdge {
		p, err = storage.DecodeEdgeVersion(kv.Key)
	} else {
		p, err = storage.DecodeNodeVersion(kv.Key)
	}
	if err != nil {
		return Version{}, err
	}
	v, err := DecodeValue(kv.Value)
	if err != nil {
		return Version{}, fmt.Errorf("%s %s: %w", kind, p.ID, err)
	}
	if v.Kind != kind {
		return Version{}, fmt.Errorf("%s %s: stored kind %s: %w", kind, p.ID, v.Kind, ErrCorrupt)
	}
	v.ID, v.Valid.Start, v.TxStart = p.ID, p.ValidStart, p.TxStart
	return v, nil
}

// scanVersions reads the version rows of r, which must lie in the version
// family of kind, calling yield until it returns false.
func scanVersions(rd storage.Reader, r storage.ScanRange, kind EntityKind, yield func(*Version) bool) error {
	for kv, err := range rd.Scan(r) {
		if err != nil {
			return err
		}
		v, err := decodeVersionRow(kind, kv)
		if err != nil {
			return err
		}
		if !yield(&v) {
			return nil
		}
	}
	return nil
}

// history reads every version of an entity, latest valid start first, then
// latest tx start first: key order.
func history(rd storage.Reader, scope storage.TenantScope, kind EntityKind, id uuid.UUID) ([]Version, error) {
	var out []Version
	err := scanVersions(rd, historyRange(scope, kind, id), kind, func(v *Version) bool {
		out = append(out, *v)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("history of %s %s: %w", kind, id, err)
	}
	return out, nil
}

// visible returns the version of vs visible at a, or nil. Tombstones are
// returned too; callers decide what a tombstone means.
func visible(vs []Version, a AsOf) *Version {
	for i := range vs {
		if vs[i].visibleAt(a) {
			return &vs[i]
		}
	}
	return nil
}

// live returns v unless it is nil or a tombstone.
func live(v *Version) *Version {
	if v == nil || v.Tombstone {
		return nil
	}
	return v
}

// supersede applies the assertion of nv to the versions hist of the same
// entity, in memory: every version still known whose valid interval
// overlaps nv's is closed at nv.TxStart, and its parts outside nv's
// interval come back as new versions at nv.TxStart. It returns the indexes
// in hist of the closed versions (their TxEnd already set) and the new
// versions, nv last.
func supersede(hist []Version, nv Version) (closed []int, added []Version) {
	tx := nv.TxStart
	for i := range hist {
		old := &hist[i]
		if old.TxEnd != Forever || !old.Valid.overlaps(nv.Valid) {
			continue
		}
		if old.Valid.Start < nv.Valid.Start {
			left := remainder(old, Interval{old.Valid.Start, nv.Valid.Start}, tx)
			added = append(added, left)
		}
		if nv.Valid.End < old.Valid.End {
			right := remainder(old, Interval{nv.Valid.End, old.Valid.End}, tx)
			added = append(added, right)
		}
		old.TxEnd = tx
		closed = append(closed, i)
	}
	return closed, append(added, nv)
}

// remainder is a copy of old re-asserted over iv at transaction time tx.
func remainder(old *Version, iv Interval, tx storage.Timestamp) Version {
	r := *old
	r.Valid, r.TxStart, r.TxEnd = iv, tx, Forever
	r.Labels = slices.Clone(old.Labels)
	return r
}
