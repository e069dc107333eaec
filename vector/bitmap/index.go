package bitmap

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// DefaultDistinctCap is the distinct-value cap of Options.DistinctCap.
const DefaultDistinctCap = 4096

// Options configure an Index.
type Options struct {
	// DistinctCap is the number of distinct equality buckets a property of
	// one label may have before it overflows; 0 means DefaultDistinctCap.
	DistinctCap uint32
}

// Errors of the index. Functions wrap them with context.
var (
	// ErrOverflow reports an equality query on a non-numeric property that
	// passed the distinct-value cap and has no equality postings.
	ErrOverflow = errors.New("property passed the distinct-value cap")

	// ErrInvalidQuery reports a query with a zero scope, an empty label or
	// property, or values that cannot be compared.
	ErrInvalidQuery = errors.New("invalid bitmap query")

	// ErrRowsExhausted reports a label that used up its 2^32-1 row ids.
	ErrRowsExhausted = errors.New("bitmap row ids exhausted")

	// ErrMismatchedVersions reports an IndexNode call whose before and
	// after versions belong to different nodes.
	ErrMismatchedVersions = errors.New("before and after versions of different nodes")
)

// Index is the bitmap predicate index on one engine. Register it on the
// temporal store (temporal.Options.Indexers or Store.RegisterIndexer); the
// store's write lock serialises its writes. Between calls it keeps only a
// cache of the logical ids of row ids (see rowCache), which a tenant wipe
// through storage.WipeTenant on the same engine value clears.
type Index struct {
	eng      storage.Engine
	capacity uint32
	rows     rowCache
}

// New returns an index over eng.
func New(eng storage.Engine, opts Options) *Index {
	if opts.DistinctCap == 0 {
		opts.DistinctCap = DefaultDistinctCap
	}
	ix := &Index{eng: eng, capacity: min(opts.DistinctCap, Overflow-1)}
	storage.OnWipe(eng, ix, (*Index).forget)
	return ix
}

// forget drops what the index caches of a wiped tenant.
func (ix *Index) forget(scope storage.TenantScope) { ix.rows.forget(scope) }

var _ temporal.Indexer = (*Index)(nil)

// IndexNode implements temporal.Indexer: it moves the node from what the
// index holds for it (its rev map rows under the labels of before and
// after) to after, adding every row to b. The rev map, not before, is the
// record of what is indexed, so the index converges even if a caller's
// before is stale.
func (ix *Index) IndexNode(b *storage.Batch, scope storage.TenantScope, before, after *temporal.Version) error {
	if ix.eng == nil {
		return fmt.Errorf("bitmap index: %w", storage.ErrNotOpen)
	}
	if before != nil && after != nil && before.ID != after.ID {
		return fmt.Errorf("bitmap index: before %s, after %s: %w", before.ID, after.ID, ErrMismatchedVersions)
	}
	var id uuid.UUID
	var labels []string
	if before != nil {
		id, labels = before.ID, append(labels, before.Labels...)
	}
	if after != nil {
		id, labels = after.ID, append(labels, after.Labels...)
	}
	if id == uuid.Nil || scope.IsZero() {
		return nil
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	st := newStager(ix, b, scope)
	for _, l := range labels {
		var want []entry
		present := after != nil && !after.Tombstone && slices.Contains(after.Labels, l)
		if present {
			want = entriesOf(after.Props)
		}
		if err := st.node(storage.HashLabel(l), id, present, want); err != nil {
			return fmt.Errorf("bitmap index %s label %q: %w", id, l, err)
		}
	}
	return st.flush()
}

// entriesOf returns the indexed form of props, sorted by property hash.
func entriesOf(props temporal.Properties) []entry {
	out := make([]entry, 0, len(props))
	for name, v := range props {
		out = append(out, entryOf(storage.HashProperty(name), v))
	}
	slices.SortFunc(out, func(a, b entry) int {
		switch {
		case a.prop < b.prop:
			return -1
		case a.prop > b.prop:
			return 1
		}
		return 0
	})
	// Two names with one hash would collide; keep the first, as the
	// documented 2^-64 risk of the property hash.
	return slices.CompactFunc(out, func(a, b entry) bool { return a.prop == b.prop })
}

// posting is a posting list being edited.
type posting struct {
	label  storage.LabelHash
	prop   storage.PropertyHash
	bucket storage.BucketHash
	bm     *roaring.Bitmap
	dirty  bool
}

// stager computes the rows of one IndexNode call. Its overlay caches every
// row it read or changed, so several labels (or nodes) in one call see each
// other's changes before they reach the batch.
type stager struct {
	ix       *Index
	b        *storage.Batch
	scope    storage.TenantScope
	postings map[storage.Key]*posting
	counters map[storage.Key]*counter
	allocs   map[storage.Key]uint32
}

// counter is a prop counter being edited.
type counter struct {
	n     uint32
	dirty bool
}

func newStager(ix *Index, b *storage.Batch, scope storage.TenantScope) *stager {
	return &stager{
		ix: ix, b: b, scope: scope,
		postings: make(map[storage.Key]*posting),
		counters: make(map[storage.Key]*counter),
		allocs:   make(map[storage.Key]uint32),
	}
}

// node moves id under one label from its indexed entries to want; present
// says whether the node has the label at all.
func (st *stager) node(label storage.LabelHash, id uuid.UUID, present bool, want []entry) error {
	revKey := storage.BitmapRevMapKey(st.scope, label, id)
	cur, found, err := readRevMap(st.ix.eng, revKey)
	if err != nil {
		return err
	}
	switch {
	case !found && !present:
		return nil
	case found && !present:
		for _, e := range cur.entries {
			if err := st.remove(label, cur.row, e); err != nil {
				return err
			}
		}
		st.b.Delete(storage.BitmapIDMapKey(st.scope, label, cur.row))
		st.b.Delete(revKey)
		return nil
	case !found:
		row, err := st.allocate(label)
		if err != nil {
			return err
		}
		cur = revMap{row: row}
		st.b.Put(storage.BitmapIDMapKey(st.scope, label, row), encodeIDMap(id))
	}
	for _, e := range cur.entries {
		if !slices.Contains(want, e) {
			if err := st.remove(label, cur.row, e); err != nil {
				return err
			}
		}
	}
	for _, e := range want {
		if !slices.Contains(cur.entries, e) {
			if err := st.add(label, cur.row, e); err != nil {
				return err
			}
		}
	}
	st.b.Put(revKey, encodeRevMap(revMap{row: cur.row, entries: want}))
	return nil
}

// allocate returns the label's next row id and advances the watermark.
func (st *stager) allocate(label storage.LabelHash) (uint32, error) {
	key := storage.BitmapAllocKey(st.scope, label)
	next, ok := st.allocs[key]
	if !ok {
		v, err := st.ix.eng.Get(key)
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return 0, err
		default:
			if next, err = decodeAlloc(v); err != nil {
				return 0, err
			}
		}
	}
	if next == math.MaxUint32 {
		return 0, ErrRowsExhausted
	}
	st.allocs[key] = next + 1
	return next, nil
}

func (st *stager) posting(label storage.LabelHash, prop storage.PropertyHash, bucket storage.BucketHash) (*posting, error) {
	key := storage.BitmapPostingKey(st.scope, label, prop, bucket)
	if p, ok := st.postings[key]; ok {
		return p, nil
	}
	bm, err := readPosting(st.ix.eng, key)
	if err != nil {
		return nil, err
	}
	p := &posting{label: label, prop: prop, bucket: bucket, bm: bm}
	st.postings[key] = p
	return p, nil
}

func (st *stager) counter(label storage.LabelHash, prop storage.PropertyHash) (*counter, error) {
	key := storage.BitmapPropCounterKey(st.scope, label, prop)
	if c, ok := st.counters[key]; ok {
		return c, nil
	}
	n, err := readCounter(st.ix.eng, key)
	if err != nil {
		return nil, err
	}
	c := &counter{n: n}
	st.counters[key] = c
	return c, nil
}

func (c *counter) set(n uint32) { c.n, c.dirty = n, true }

// postingsOf returns the band posting of e (nil if e has no band) and, if
// the property is under the cap, its counter and equality posting (nil
// otherwise).
func (st *stager) postingsOf(label storage.LabelHash, e entry) (band *posting, c *counter, equal *posting, err error) {
	if bucket, ok := e.bandBucket(); ok {
		if band, err = st.posting(label, e.prop, bucket); err != nil {
			return nil, nil, nil, err
		}
		band.dirty = true
	}
	if c, err = st.counter(label, e.prop); err != nil || c.n == Overflow {
		return band, nil, nil, err
	}
	if equal, err = st.posting(label, e.prop, e.equalBucket()); err != nil {
		return nil, nil, nil, err
	}
	return band, c, equal, nil
}

// add puts row into the band and equality postings of e. A new equality
// bucket past the cap overflows the property instead.
func (st *stager) add(label storage.LabelHash, row uint32, e entry) error {
	band, c, equal, err := st.postingsOf(label, e)
	if err != nil {
		return err
	}
	if band != nil {
		band.bm.Add(row)
	}
	if equal == nil {
		return nil
	}
	if equal.bm.IsEmpty() {
		if c.n >= st.ix.capacity {
			c.set(Overflow)
			return st.overflow(label, e.prop)
		}
		c.set(c.n + 1)
	}
	equal.bm.Add(row)
	equal.dirty = true
	return nil
}

// remove takes row out of the band and equality postings of e; a bucket
// that empties no longer counts as a distinct value.
func (st *stager) remove(label storage.LabelHash, row uint32, e entry) error {
	band, c, equal, err := st.postingsOf(label, e)
	if err != nil {
		return err
	}
	if band != nil {
		band.bm.Remove(row)
	}
	if equal != nil && equal.bm.CheckedRemove(row) {
		equal.dirty = true
		if equal.bm.IsEmpty() && c.n > 0 {
			c.set(c.n - 1)
		}
	}
	return nil
}

// overflow marks a property as past the cap and empties (so deletes) all
// its equality postings, stored or staged.
func (st *stager) overflow(label storage.LabelHash, prop storage.PropertyHash) error {
	for kv, err := range st.ix.eng.Scan(storage.BitmapPostingsRange(st.scope, label, prop)) {
		if err != nil {
			return err
		}
		parts, err := storage.DecodeBitmap(kv.Key)
		if err != nil {
			return err
		}
		if bandBuckets[parts.Bucket] {
			continue
		}
		key := storage.BitmapPostingKey(st.scope, label, prop, parts.Bucket)
		st.postings[key] = &posting{label: label, prop: prop, bucket: parts.Bucket, bm: roaring.New(), dirty: true}
	}
	for _, p := range st.postings {
		if p.label == label && p.prop == prop && !bandBuckets[p.bucket] {
			p.bm.Clear()
			p.dirty = true
		}
	}
	return nil
}

// flush adds every changed row of the overlay to the batch; an emptied
// posting is deleted, never stored empty.
func (st *stager) flush() error {
	for key, p := range st.postings {
		if !p.dirty {
			continue
		}
		if p.bm.IsEmpty() {
			st.b.Delete(key)
			continue
		}
		v, err := encodePosting(p.bm)
		if err != nil {
			return err
		}
		st.b.Put(key, v)
	}
	for key, c := range st.counters {
		if c.dirty {
			st.b.Put(key, encodeCounter(c.n))
		}
	}
	for key, next := range st.allocs {
		st.b.Put(key, encodeAlloc(next))
	}
	return st.b.Err()
}

func readRevMap(r storage.Reader, key storage.Key) (revMap, bool, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return revMap{}, false, nil
	}
	if err != nil {
		return revMap{}, false, err
	}
	rm, err := decodeRevMap(v)
	return rm, err == nil, err
}

func readPosting(r storage.Reader, key storage.Key) (*roaring.Bitmap, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return roaring.New(), nil
	}
	if err != nil {
		return nil, err
	}
	return decodePosting(v)
}

func readCounter(r storage.Reader, key storage.Key) (uint32, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return decodeCounter(v)
}
