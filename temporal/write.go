package temporal

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// writer collects the rows of one write into one batch.
type writer struct {
	s     *Store
	scope storage.TenantScope
	b     storage.Batch
	buf   []byte
}

// putVersion writes a new or rewritten version row, and for a new version
// its two temporal index rows; for a live edge version also its two
// adjacency rows. edgeType is the hash of an edge's type.
func (w *writer) putVersion(v *Version, fresh bool, edgeType storage.EdgeTypeHash) {
	key := v.key(w.scope)
	w.buf = AppendValue(w.buf[:0], v)
	w.b.Put(key, w.buf)
	if fresh {
		primary := key.Bytes()
		w.b.Put(storage.ValidTimeIndexKey(w.scope, v.Valid.Start, v.TxStart, v.ID, v.Kind.indexKind()), primary)
		w.b.Put(storage.TxTimeIndexKey(w.scope, v.TxStart, v.Valid.Start, v.ID, v.Kind.indexKind()), primary)
	}
	if v.Kind == EntityEdge && !v.Tombstone {
		w.buf = appendAdjacencyValue(w.buf[:0], v)
		w.b.Put(storage.AdjacencyOutKey(w.scope, v.From, edgeType, v.Valid.Start, v.TxStart, v.To), w.buf)
		w.b.Put(storage.AdjacencyInKey(w.scope, v.To, edgeType, v.Valid.Start, v.TxStart, v.From), w.buf)
	}
}

// assert supersedes hist with nv: it writes the closed versions back, and
// the remainders and nv as new versions. It returns hist updated in memory
// (closed versions with their TxEnd, new versions appended).
func (w *writer) assert(hist []Version, nv Version, edgeType storage.EdgeTypeHash) []Version {
	closed, added := supersede(hist, nv)
	for _, i := range closed {
		w.putVersion(&hist[i], false, edgeType)
	}
	for i := range added {
		w.putVersion(&added[i], true, edgeType)
	}
	return append(hist, added...)
}

// AssertNode records that the node fact holds over f.Valid, as of a new
// transaction time, which it returns. Earlier knowledge overlapping f.Valid
// is superseded: this is both assertion and correction.
func (s *Store) AssertNode(scope storage.TenantScope, f NodeFact) (storage.Timestamp, error) {
	v, err := nodeVersion(f)
	if err != nil {
		return 0, err
	}
	return s.write(scope, false, "assert node "+f.ID.String(), func(w *writer) (storage.Timestamp, error) {
		return w.node(v)
	})
}

// write runs fill under the write lock with a fresh batch for scope and
// applies the batch (durably when asked). It returns the transaction time
// fill returns.
//
// The batch also advances the tenant's transaction clock in the store
// (storage.ReadTxClock) to the latest time fill handed out, and requires
// the tenant's generation, each as the Store last knew it: the cluster
// clock of the package documentation. It requires the tenant's registry
// row as it is read before the write (tenants.RequireWritable): a tenant
// being imported or erased is refused, and a write checked before that
// began is overtaken, made again, and refused. A write that another process's
// write overtook meanwhile fails those conditions, applies nothing, and is
// made again from a fresh reading of the counters and of what it
// supersedes; when the generation moved (a wipe, an erasure, an import
// through another process), every subsystem of this process drops its
// caches of the tenant first (storage.RefreshTenant).
func (s *Store) write(scope storage.TenantScope, durable bool, what string, fill func(*writer) (storage.Timestamp, error)) (storage.Timestamp, error) {
	if err := s.check(scope); err != nil {
		return 0, err
	}
	for attempt := 1; ; attempt++ {
		tx, moved, err := s.attempt(scope, durable, fill)
		switch {
		case err == nil:
			return tx, nil
		case !errors.Is(err, storage.ErrConflict) || attempt == maxWriteAttempts:
			return 0, fmt.Errorf("%s: %w", what, err)
		case moved:
			if err := storage.RefreshTenant(s.engine, scope); err != nil {
				return 0, fmt.Errorf("%s: %w", what, err)
			}
		}
	}
}

// maxWriteAttempts bounds the attempts of one write that other processes'
// writes keep overtaking. Each conflict means another write of the tenant
// landed, so the deployment made progress; a write that loses this many
// times in a row reports ErrConflict rather than retry for ever.
const maxWriteAttempts = 1000

// attempt makes one attempt of write, under the write lock. After a
// conflict, it reports whether the tenant's generation moved.
func (s *Store) attempt(scope storage.TenantScope, durable bool, fill func(*writer) (storage.Timestamp, error)) (tx storage.Timestamp, moved bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.tenant(scope)
	if err != nil {
		return 0, false, err
	}
	s.clock.Observe(st.clock.Time())
	w := &writer{s: s, scope: scope}
	if err := tenants.RequireWritable(s.engine, &w.b, scope); err != nil {
		return 0, false, err
	}
	if tx, err = fill(w); err != nil {
		return 0, false, err
	}
	last := s.clock.Last()
	w.b.AdvanceTxClock(st.clock, last)
	w.b.RequireCounter(st.generation)
	apply := s.engine.Write
	if durable {
		apply = s.engine.WriteDurable
	}
	if err := apply(&w.b); err != nil {
		// Overtaken, or an unknown outcome: read the counters again.
		delete(s.tenants, scope)
		if errors.Is(err, storage.ErrConflict) {
			g, gerr := storage.ReadGeneration(s.engine, scope)
			moved = gerr != nil || g != st.generation
		}
		return 0, moved, err
	}
	st.clock = st.clock.AdvancedTo(last)
	return tx, false, nil
}

// node writes node version v at a new transaction time, which it returns,
// and runs the indexers on the node's current version before and after.
func (w *writer) node(v Version) (storage.Timestamp, error) {
	var err error
	if v.TxStart, err = w.s.clock.Next(); err != nil {
		return 0, err
	}
	hist, err := history(w.s.engine, w.scope, EntityNode, v.ID)
	if err != nil {
		return 0, err
	}
	now := Current(v.TxStart)
	before := live(visible(hist, now))
	if before != nil {
		b := *before // hist is updated in place below
		before = &b
	}
	hist = w.assert(hist, v, 0)
	after := live(visible(hist, now))
	for _, ix := range w.s.indexers {
		if err := ix.IndexNode(&w.b, w.scope, before, after); err != nil {
			return 0, fmt.Errorf("index node %s: %w", v.ID, err)
		}
	}
	return v.TxStart, nil
}

func nodeVersion(f NodeFact) (Version, error) {
	if f.ID == uuid.Nil {
		return Version{}, fmt.Errorf("node with nil id: %w", ErrInvalidFact)
	}
	v := Version{Kind: EntityNode, ID: f.ID, Valid: f.Valid, TxEnd: Forever}
	if err := v.setContent(f.Labels, f.Props); err != nil {
		return Version{}, fmt.Errorf("node %s: %w", f.ID, err)
	}
	return v, nil
}

// setContent checks the valid interval of v and stores normalised copies
// of labels and props in it.
func (v *Version) setContent(labels []string, props Properties) error {
	if err := v.Valid.Check(); err != nil {
		return err
	}
	var err error
	if v.Labels, err = normalLabels(labels); err != nil {
		return err
	}
	v.Props, err = cloneProps(props)
	return err
}

// AssertEdge records that the edge fact holds over f.Valid, as of a new
// transaction time, which it returns. Both endpoints must be known nodes;
// an edge's endpoints and type never change.
func (s *Store) AssertEdge(scope storage.TenantScope, f EdgeFact) (storage.Timestamp, error) {
	v, err := edgeVersion(f)
	if err != nil {
		return 0, err
	}
	return s.write(scope, false, "assert edge "+f.ID.String(), func(w *writer) (storage.Timestamp, error) {
		for _, end := range []uuid.UUID{f.From, f.To} {
			if err := w.requireNode(end); err != nil {
				return 0, err
			}
		}
		var err error
		if v.TxStart, err = s.clock.Next(); err != nil {
			return 0, err
		}
		return v.TxStart, w.edge(v)
	})
}

// requireNode returns ErrUnknownNode unless id has at least one version.
func (w *writer) requireNode(id uuid.UUID) error {
	for _, err := range w.s.engine.Scan(storage.NodeHistory(w.scope, id)) {
		if err != nil {
			return fmt.Errorf("look up node %s: %w", id, err)
		}
		return nil
	}
	return fmt.Errorf("node %s: %w", id, ErrUnknownNode)
}

// edge writes edge version v, whose TxStart is set, superseding the edge's
// earlier knowledge.
func (w *writer) edge(v Version) error {
	hist, err := history(w.s.engine, w.scope, EntityEdge, v.ID)
	if err != nil {
		return err
	}
	for i := range hist {
		if hist[i].From != v.From || hist[i].To != v.To || hist[i].Type != v.Type {
			return fmt.Errorf("edge %s (%s)-[%s]->(%s), stored as (%s)-[%s]->(%s): %w",
				v.ID, v.From, v.Type, v.To, hist[i].From, hist[i].Type, hist[i].To, ErrEndpointsChanged)
		}
	}
	h, err := w.s.edgeTypes.Resolve(&w.b, w.scope, v.Type, v.TxStart)
	if err != nil {
		return fmt.Errorf("edge %s: %w", v.ID, err)
	}
	w.assert(hist, v, h)
	return nil
}

func edgeVersion(f EdgeFact) (Version, error) {
	if f.ID == uuid.Nil || f.From == uuid.Nil || f.To == uuid.Nil {
		return Version{}, fmt.Errorf("edge %s (%s)->(%s): nil id: %w", f.ID, f.From, f.To, ErrInvalidFact)
	}
	if f.Type == "" {
		return Version{}, fmt.Errorf("edge %s: empty type: %w", f.ID, ErrInvalidFact)
	}
	v := Version{Kind: EntityEdge, ID: f.ID, Valid: f.Valid, TxEnd: Forever, From: f.From, To: f.To, Type: f.Type}
	if err := v.setContent(f.Labels, f.Props); err != nil {
		return Version{}, fmt.Errorf("edge %s: %w", f.ID, err)
	}
	return v, nil
}

// sortedNames returns the property names in ascending order.
func sortedNames(p Properties) []string {
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
