package temporal

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// NodeAsOf returns the version of node id true at a.Valid as known at a.Tx,
// or ErrNotFound when there is none or it is a tombstone.
func (s *Store) NodeAsOf(scope storage.TenantScope, id uuid.UUID, a AsOf) (Version, error) {
	return s.asOf(s.engine, scope, EntityNode, id, a)
}

// EdgeAsOf returns the version of edge id true at a.Valid as known at a.Tx,
// or ErrNotFound.
func (s *Store) EdgeAsOf(scope storage.TenantScope, id uuid.UUID, a AsOf) (Version, error) {
	return s.asOf(s.engine, scope, EntityEdge, id, a)
}

// CurrentNode returns the node's version true now, by all the store knows.
func (s *Store) CurrentNode(scope storage.TenantScope, id uuid.UUID) (Version, error) {
	return s.NodeAsOf(scope, id, Current(s.clock.Now()))
}

// NodeHistory returns every version of node id, latest valid start first,
// then latest transaction start first; ErrNotFound if there is none.
func (s *Store) NodeHistory(scope storage.TenantScope, id uuid.UUID) ([]Version, error) {
	return s.history(scope, EntityNode, id)
}

// EdgeHistory returns every version of edge id, as NodeHistory does.
func (s *Store) EdgeHistory(scope storage.TenantScope, id uuid.UUID) ([]Version, error) {
	return s.history(scope, EntityEdge, id)
}

func (s *Store) history(scope storage.TenantScope, kind EntityKind, id uuid.UUID) ([]Version, error) {
	if err := s.check(scope); err != nil {
		return nil, err
	}
	vs, err := history(s.engine, scope, kind, id)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("history of %s %s: %w", kind, id, ErrNotFound)
	}
	return vs, nil
}

// asOf scans only the versions whose valid start is at or before a.Valid:
// the history range resumed after the key (id, a.Valid, Forever), which
// sorts first among the versions starting at a.Valid. No version has tx
// start Forever, so none is skipped. Among the versions known at a.Tx at
// most one contains a.Valid; the scan stops at it.
func (s *Store) asOf(rd storage.Reader, scope storage.TenantScope, kind EntityKind, id uuid.UUID, a AsOf) (Version, error) {
	if err := s.check(scope); err != nil {
		return Version{}, err
	}
	var seek storage.Key
	if kind == EntityEdge {
		seek = storage.EdgeVersionKey(scope, id, a.Valid, Forever)
	} else {
		seek = storage.NodeVersionKey(scope, id, a.Valid, Forever)
	}
	r, err := historyRange(scope, kind, id).After(seek)
	if err != nil {
		return Version{}, fmt.Errorf("%s %s as of %s/%s: %w", kind, id, a.Valid, a.Tx, err)
	}
	var found *Version
	err = func() error {
		for kv, err := range rd.Scan(r) {
			if err != nil {
				return err
			}
			if !candidate(kind, kv, a) {
				continue
			}
			v, err := decodeVersionRow(kind, kv)
			if err != nil {
				return err
			}
			if v.visibleAt(a) {
				found = &v
				return nil
			}
		}
		return nil
	}()
	if err != nil {
		return Version{}, fmt.Errorf("%s %s as of %s/%s: %w", kind, id, a.Valid, a.Tx, err)
	}
	if live(found) == nil {
		return Version{}, fmt.Errorf("%s %s as of valid %s, tx %s: %w", kind, id, a.Valid, a.Tx, ErrNotFound)
	}
	return *found, nil
}

// candidate reports from the key and the value header alone whether a
// version row can answer an as-of read at a, so that rows of other
// transaction times are skipped without decoding labels and properties.
// Rows it cannot judge (malformed) are candidates, so that decoding
// reports them.
func candidate(kind EntityKind, kv storage.KV, a AsOf) bool {
	decode := storage.DecodeNodeVersion
	if kind == EntityEdge {
		decode = storage.DecodeEdgeVersion
	}
	p, err := decode(kv.Key)
	if err != nil || len(kv.Value) < valueHeaderLen {
		return true
	}
	validEnd, txEnd := valueEnds(kv.Value)
	return p.TxStart <= a.Tx && a.Valid < validEnd && (txEnd == Forever || a.Tx < txEnd)
}
