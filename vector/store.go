package vector

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/models"
	"telha.dev/core/storage/system/tenants"
)

// Store reads and writes vectors on one engine, and keeps the in-memory
// indexes that answer searches of "now" (see the package documentation).
// It is safe for concurrent use whenever the engine is.
//
// The indexes hear of every write made through a Store over the same
// engine value (Put, Delete, Write, WriteDurable, and batches of Stage
// however they are written): the Stores over one engine share them. They
// hear of every storage.WipeTenant on that engine value too, and learn of
// writes, wipes, erasures and imports through other processes from the
// store itself (see the package documentation). A vectors row written to
// the engine any other way is not seen by a search of "now" until every
// Store over the engine has been closed and one opened again, or a write
// through a Store of any process advances the sequence.
type Store struct {
	eng    storage.Engine
	opts   Options
	mem    *memory
	closed atomic.Bool
	detach runtime.Cleanup // detaches mem if the Store is dropped unclosed
}

// New returns a store over eng with default Options.
func New(eng storage.Engine) *Store { return NewWithOptions(eng, Options{}) }

// NewWithOptions returns a store over eng. It reads nothing: the index of
// a tenant and model is loaded by its first search of "now", and its
// approximate graph built by its first approximate search (or by Warm).
func NewWithOptions(eng storage.Engine, opts Options) *Store {
	s := &Store{eng: eng, opts: opts.withDefaults(), mem: attach(eng)}
	s.detach = runtime.AddCleanup(s, detach, s.mem)
	return s
}

// Close detaches the Store from the in-memory indexes, which are freed
// with the last Store over the engine, and then stop their builders. The
// engine stays open. Later calls of the Store fail with storage.ErrClosed;
// Close itself may be called again.
func (s *Store) Close() error {
	if s.mem == nil || s.closed.Swap(true) {
		return nil
	}
	s.detach.Stop()
	detach(s.mem)
	return nil
}

// ready reports why the store cannot be used: no engine, or closed.
func (s *Store) ready() error {
	if s.eng == nil || s.mem == nil {
		return storage.ErrNotOpen
	}
	if s.closed.Load() {
		return storage.ErrClosed
	}
	return nil
}

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
	if err := s.ready(); err != nil {
		return fmt.Errorf("put vector %s: %w", node, err)
	}
	err := models.Pin(s.eng, model, txStart, func(m Model) error {
		var b storage.Batch
		if _, err := stage(&b, scope, m, node, validStart, txStart, v); err != nil {
			return err
		}
		return s.write(&b, false)
	})
	if err != nil {
		return fmt.Errorf("put vector %s: %w", node, err)
	}
	return nil
}

// Stage adds the write of v to b, so that many vectors, or a vector and
// other rows, land in one atomic batch. m is the model as looked up by the
// caller (one lookup serves a whole bulk load); it is checked for
// validity, not against the registry, so a model redefined since the
// lookup stores rows that searches at the new dimension pass over.
//
// Write b with s.Write or s.WriteDurable, which bring the in-memory
// indexes up to date at once. A batch written straight to the engine is
// noticed too, but later: its rows stay pending until a search of their
// tenant and model finds them stored (one point read each), and a batch
// that is never written keeps its rows pending until the last Store over
// the engine is closed.
func (s *Store) Stage(b *storage.Batch, scope storage.TenantScope, m Model, node uuid.UUID, validStart, txStart storage.Timestamp, v []float32) error {
	if err := s.ready(); err != nil {
		return fmt.Errorf("stage vector %s: %w", node, err)
	}
	value, err := stage(b, scope, m, node, validStart, txStart, v)
	if err != nil {
		return err
	}
	row := stagedRow{key: stagedKey{node: node, valid: validStart, tx: txStart}, value: string(value)}
	if err := s.mem.stage(s.eng, indexKey{scope: scope, model: m.ID}, row); err != nil {
		return fmt.Errorf("stage vector %s: %w", node, err)
	}
	return nil
}

// stage checks a vector write, adds it to b and returns the value.
func stage(b *storage.Batch, scope storage.TenantScope, m Model, node uuid.UUID, validStart, txStart storage.Timestamp, v []float32) ([]byte, error) {
	if scope.IsZero() || node == uuid.Nil {
		return nil, fmt.Errorf("stage vector %s: zero scope or nil node: %w", node, ErrInvalidQuery)
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("stage vector %s: %w", node, err)
	}
	if err := checkVector(m, v); err != nil {
		return nil, fmt.Errorf("stage vector %s: %w", node, err)
	}
	value := encodeValue(v)
	b.Put(storage.VectorKey(scope, node, m.ID, validStart, txStart), value)
	return value, b.Err()
}

// Write applies b to the engine under its sync policy, then brings the
// in-memory indexes up to date with the vectors rows it holds (rows of
// other families pass through). If the engine fails, the indexes that b
// touches are dropped and loaded again when next searched.
func (s *Store) Write(b *storage.Batch) error {
	if err := s.ready(); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	return s.write(b, false)
}

// WriteDurable is Write with Engine.WriteDurable: it returns once b is on
// stable storage.
func (s *Store) WriteDurable(b *storage.Batch) error {
	if err := s.ready(); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	return s.write(b, true)
}

// write applies b with the sequence of every tenant and model it writes
// vectors of advanced in it (storage.WriteCounted: made again when
// another writer advanced one meanwhile), so that the indexes of other
// processes learn of it (memory.validate), and fenced on the registry row
// of every tenant it writes rows of, vectors or not
// (tenants.RequireWritable): a tenant being
// imported or erased is refused with tenants.ErrNotWritable, also when it
// began after the batch was checked.
func (s *Store) write(b *storage.Batch, durable bool) error {
	// The rows are read before the engine sees the batch, and b must not
	// change until Write returns, as with Engine.Write.
	rows := vectorRows(b)
	keys := make([]indexKey, 0, len(rows))
	for key := range rows {
		keys = append(keys, key)
	}
	scopes := b.TenantScopes()
	// The first attempt takes the sequences as this process last wrote or
	// read them; an attempt they fail (another process wrote) reads them.
	// The values an attempt expects are claimed (inflight.go) until the
	// write is applied, or the attempt failed.
	reads := 0
	var claimed []claim
	defer func() { s.mem.release(claimed) }()
	read := func(r storage.Reader) ([]storage.Counter, error) {
		reads++
		cs := make([]storage.Counter, len(keys))
		values := make([]uint64, len(keys))
		for i, key := range keys {
			c, ok := s.mem.knownSequence(key)
			if !ok || reads > 1 {
				var err error
				if c, err = storage.ReadVectorsSequence(r, key.scope, key.model); err != nil {
					return nil, err
				}
			}
			cs[i], values[i] = c, c.Value()
		}
		s.mem.release(claimed)
		claimed = s.mem.claim(keys, values)
		return cs, nil
	}
	cs, err := storage.WriteCounted(s.eng, durable, read, func(wb *storage.Batch) error {
		wb.Append(b)
		for _, scope := range scopes {
			if err := tenants.RequireWritable(s.eng, wb, scope); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.mem.failedBatch(rows)
		for _, scope := range scopes {
			err = tenants.Refused(s.eng, scope, err)
		}
		return err
	}
	seqs := make(map[indexKey]uint64, len(keys))
	for i, key := range keys {
		seqs[key] = cs[i].Value()
		s.mem.knowSequence(key, cs[i].Advanced(cs[i].Value()+1), reads == 1)
	}
	s.mem.applyBatch(s.eng, rows, seqs)
	return nil
}

// Delete ends the embedding of node under model from validStart on,
// recorded at txStart, by writing a tombstone version. The tombstone is
// written durably: once Delete returns, the vector stays deleted through a
// crash or a power loss.
func (s *Store) Delete(scope storage.TenantScope, node uuid.UUID, model string, validStart, txStart storage.Timestamp) error {
	if err := s.ready(); err != nil {
		return fmt.Errorf("delete vector %s: %w", node, err)
	}
	if scope.IsZero() || node == uuid.Nil {
		return fmt.Errorf("delete vector %s: zero scope or nil node: %w", node, ErrInvalidQuery)
	}
	err := models.Pin(s.eng, model, txStart, func(m Model) error {
		var b storage.Batch
		b.Put(storage.VectorKey(scope, node, m.ID, validStart, txStart), encodeTombstone())
		return s.write(&b, true)
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
	if err := s.ready(); err != nil {
		return nil, fmt.Errorf("get vector %s: %w", node, err)
	}
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

// Warm loads the in-memory index of a tenant's vectors under model and
// builds its approximate graph under the model's current metric,
// returning when both are ready. Without it, the first search of "now"
// loads the index and the first approximate search starts the graph in
// the background.
func (s *Store) Warm(scope storage.TenantScope, model string) error {
	if err := s.ready(); err != nil {
		return fmt.Errorf("warm %q: %w", model, err)
	}
	if scope.IsZero() {
		return fmt.Errorf("warm %q: zero scope: %w", model, ErrInvalidQuery)
	}
	m, err := s.Model(model)
	if err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	ix, v, err := s.mem.acquire(s.eng, indexKey{scope: scope, model: m.ID})
	if err != nil {
		return fmt.Errorf("warm %q in %s: %w", model, scope, err)
	}
	mx := v.mats[m.Dimension]
	if mx == nil {
		return nil
	}
	if mx, a := ix.wantGraph(mx, m.Metric, s.opts.graph()); a != nil {
		for ix.extend(mx, a, builderStep) {
		}
	}
	return nil
}
