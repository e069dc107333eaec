package vector

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/models"
)

// Store reads and writes vectors on one engine. It holds no state of its
// own, so it is safe for concurrent use whenever the engine is.
type Store struct {
	eng storage.Engine
}

// New returns a store over eng.
func New(eng storage.Engine) *Store { return &Store{eng: eng} }

// AsOf is a point in valid time and transaction time.
type AsOf struct {
	Valid storage.Timestamp
	Tx    storage.Timestamp
}

// Latest reads what is valid and known at the end of time.
var Latest = AsOf{Valid: storage.MaxTimestamp, Tx: storage.MaxTimestamp}

// visible reports whether a version at (validStart, txStart) is a candidate
// as of at. Versions of one (node, model) are scanned latest valid start
// first, then latest tx start first, so the first visible one is the
// current version.
func (at AsOf) visible(validStart, txStart storage.Timestamp) bool {
	return validStart <= at.Valid && txStart <= at.Tx
}

// Put stores v as the embedding of node under model from validStart on,
// recorded at txStart. The model must be registered at txStart and v must
// match its dimension.
func (s *Store) Put(scope storage.TenantScope, node uuid.UUID, model string, validStart, txStart storage.Timestamp, v []float32) error {
	err := models.Pin(s.eng, model, txStart, func(m Model) error {
		var b storage.Batch
		if err := Stage(&b, scope, m, node, validStart, txStart, v); err != nil {
			return err
		}
		return s.eng.Write(&b)
	})
	if err != nil {
		return fmt.Errorf("put vector %s: %w", node, err)
	}
	return nil
}

// Stage adds the write of v to b, so that a vector lands in the same atomic
// batch as the node version it belongs to. m is the model as looked up by
// the caller (one lookup serves a whole bulk load). A caller that writes b
// later should look m up and write b inside models.Pin, as Put does, so
// that a redefinition of the model cannot land in between.
func Stage(b *storage.Batch, scope storage.TenantScope, m Model, node uuid.UUID, validStart, txStart storage.Timestamp, v []float32) error {
	if scope.IsZero() || node == uuid.Nil {
		return fmt.Errorf("stage vector %s: zero scope or nil node: %w", node, ErrInvalidQuery)
	}
	if err := m.Check(); err != nil {
		return fmt.Errorf("stage vector %s: %w", node, err)
	}
	if err := checkVector(m, v); err != nil {
		return fmt.Errorf("stage vector %s: %w", node, err)
	}
	b.Put(storage.VectorKey(scope, node, m.ID, validStart, txStart), encodeValue(v))
	return b.Err()
}

// Delete ends the embedding of node under model from validStart on,
// recorded at txStart, by writing a tombstone version. The tombstone is
// written durably: once Delete returns, the vector stays deleted through a
// crash or a power loss.
func (s *Store) Delete(scope storage.TenantScope, node uuid.UUID, model string, validStart, txStart storage.Timestamp) error {
	if scope.IsZero() || node == uuid.Nil {
		return fmt.Errorf("delete vector %s: zero scope or nil node: %w", node, ErrInvalidQuery)
	}
	err := models.Pin(s.eng, model, txStart, func(m Model) error {
		var b storage.Batch
		b.Put(storage.VectorKey(scope, node, m.ID, validStart, txStart), encodeTombstone())
		return s.eng.WriteDurable(&b)
	})
	if err != nil {
		return fmt.Errorf("delete vector %s: %w", node, err)
	}
	return nil
}

// Get returns the embedding of node under model as of at, or ErrNotFound.
// The model only needs to be registered: a vector stored under an earlier
// definition is returned as stored.
func (s *Store) Get(scope storage.TenantScope, node uuid.UUID, model string, at AsOf) ([]float32, error) {
	if scope.IsZero() {
		return nil, fmt.Errorf("get vector %s: zero scope: %w", node, ErrInvalidQuery)
	}
	m, err := s.Model(model)
	if err != nil {
		return nil, fmt.Errorf("get vector %s: %w", node, err)
	}
	v, err := current(s.eng, scope, node, m.ID, at, nil)
	if err != nil {
		return nil, fmt.Errorf("get vector %s under %q as of %s/%s: %w", node, model, at.Valid, at.Tx, err)
	}
	return v, nil
}

// current returns the visible version of (node, model) as of at, decoded
// into dst, or ErrNotFound.
func current(r storage.Reader, scope storage.TenantScope, node uuid.UUID, model storage.ModelID, at AsOf, dst []float32) ([]float32, error) {
	for kv, err := range r.Scan(storage.VectorHistory(scope, node, model)) {
		if err != nil {
			return nil, err
		}
		p, err := storage.DecodeVector(kv.Key)
		if err != nil {
			return nil, err
		}
		if !at.visible(p.ValidStart, p.TxStart) {
			continue
		}
		v, tomb, err := decodeValue(dst, kv.Value)
		if err != nil {
			return nil, err
		}
		if tomb {
			return nil, ErrNotFound
		}
		return v, nil
	}
	return nil, ErrNotFound
}

// isNotFound reports whether err is ErrNotFound.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
