package bitmap

import (
	"errors"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// Equal returns the nodes with label whose property equals v (same kind;
// floats bitwise), in row-id order. r is the engine or a snapshot of it.
func (ix *Index) Equal(r storage.Reader, scope storage.TenantScope, label, property string, v temporal.Value) ([]uuid.UUID, error) {
	if err := ix.begin(r, scope, label, property); err != nil {
		return nil, err
	}
	if v.Kind < temporal.KindString || v.Kind > temporal.KindBytes {
		return nil, fmt.Errorf("equal %s.%s: value kind %s: %w", label, property, v.Kind, ErrInvalidQuery)
	}
	lh, ph := storage.HashLabel(label), storage.HashProperty(property)
	n, err := readCounter(r, storage.BitmapPropCounterKey(scope, lh, ph))
	if err != nil {
		return nil, fmt.Errorf("equal %s.%s: %w", label, property, err)
	}
	if n != Overflow {
		bm, err := readPosting(r, storage.BitmapPostingKey(scope, lh, ph, equalBucket(v)))
		if err != nil {
			return nil, fmt.Errorf("equal %s.%s: %w", label, property, err)
		}
		return ix.ids(r, scope, lh, bm)
	}
	b, ok := band(asFloat(v))
	if !numeric(v.Kind) || !ok {
		return nil, fmt.Errorf("equal %s.%s = %#v: %w", label, property, v, ErrOverflow)
	}
	match := func(e entry) bool { return e.kind == v.Kind && e.value().Equal(v) }
	bm, err := ix.recheck(r, scope, lh, ph, bandBucket(v.Kind, b), match)
	if err != nil {
		return nil, fmt.Errorf("equal %s.%s: %w", label, property, err)
	}
	return ix.ids(r, scope, lh, bm)
}

// Range returns the nodes with label whose property lies in [lo, hi], in
// row-id order. lo and hi must both be ints or both floats, and not NaN;
// only values of that kind match.
func (ix *Index) Range(r storage.Reader, scope storage.TenantScope, label, property string, lo, hi temporal.Value) ([]uuid.UUID, error) {
	if err := ix.begin(r, scope, label, property); err != nil {
		return nil, err
	}
	if !numeric(lo.Kind) || lo.Kind != hi.Kind || math.IsNaN(asFloat(lo)) || math.IsNaN(asFloat(hi)) {
		return nil, fmt.Errorf("range %s.%s [%#v, %#v]: %w", label, property, lo, hi, ErrInvalidQuery)
	}
	in := func(e entry) bool {
		if e.kind != lo.Kind {
			return false
		}
		if e.kind == temporal.KindInt {
			x := int64(e.payload)
			return lo.Int <= x && x <= hi.Int
		}
		x := math.Float64frombits(e.payload)
		return lo.Float <= x && x <= hi.Float
	}
	lh, ph := storage.HashLabel(label), storage.HashProperty(property)
	bl, _ := band(asFloat(lo))
	bh, _ := band(asFloat(hi))
	if (lo.Kind == temporal.KindInt && lo.Int > hi.Int) || (lo.Kind == temporal.KindFloat && lo.Float > hi.Float) {
		return []uuid.UUID{}, nil
	}
	out := roaring.New()
	for b := bl + 1; b < bh; b++ {
		bm, err := readPosting(r, storage.BitmapPostingKey(scope, lh, ph, bandBucket(lo.Kind, b)))
		if err != nil {
			return nil, fmt.Errorf("range %s.%s: %w", label, property, err)
		}
		out.Or(bm)
	}
	for _, b := range []uint8{bl, bh} {
		bm, err := ix.recheck(r, scope, lh, ph, bandBucket(lo.Kind, b), in)
		if err != nil {
			return nil, fmt.Errorf("range %s.%s: %w", label, property, err)
		}
		out.Or(bm)
		if bl == bh {
			break
		}
	}
	return ix.ids(r, scope, lh, out)
}

func checkQuery(r storage.Reader, scope storage.TenantScope, label, property string) error {
	if r == nil {
		return fmt.Errorf("query %q.%q: %w", label, property, storage.ErrNotOpen)
	}
	if scope.IsZero() || label == "" || property == "" {
		return fmt.Errorf("query %q.%q in %s: %w", label, property, scope, ErrInvalidQuery)
	}
	return nil
}

// recheck returns the rows of one band posting whose stored entry for prop
// satisfies match.
func (ix *Index) recheck(r storage.Reader, scope storage.TenantScope, label storage.LabelHash, prop storage.PropertyHash, bucket storage.BucketHash, match func(entry) bool) (*roaring.Bitmap, error) {
	bm, err := readPosting(r, storage.BitmapPostingKey(scope, label, prop, bucket))
	if err != nil {
		return nil, err
	}
	rows := bm.ToArray()
	ids := make([]uuid.UUID, len(rows))
	if err := ix.resolve(r, scope, label, rows, ids); err != nil {
		return nil, err
	}
	out := roaring.New()
	for i, row := range rows {
		id := ids[i]
		rm, found, err := readRevMap(r, storage.BitmapRevMapKey(scope, label, id))
		if err != nil {
			return nil, err
		}
		if !found || rm.row != row {
			return nil, fmt.Errorf("row %d of %s: rev map disagrees: %w", row, id, ErrBadValue)
		}
		for _, e := range rm.entries {
			if e.prop == prop && match(e) {
				out.Add(row)
			}
		}
	}
	return out, nil
}

// begin checks a query, and for a query through the index's own engine,
// which goes through the row cache (resolve), validates the cache of the
// tenant against the store first (storage.RefreshTenant): another process
// may have wiped the tenant, which starts its row ids again.
func (ix *Index) begin(r storage.Reader, scope storage.TenantScope, label, property string) error {
	if err := checkQuery(r, scope, label, property); err != nil {
		return err
	}
	if ix.cached(r) {
		return storage.RefreshTenant(ix.eng, scope)
	}
	return nil
}

// cached reports whether a query through r goes through the row cache: r
// is the index's own engine.
func (ix *Index) cached(r storage.Reader) bool {
	e, ok := r.(storage.Engine)
	return ok && ix.eng != nil && storage.Identifiable(e) && e == ix.eng
}

// ids maps rows to logical ids through the id map, in row order.
func (ix *Index) ids(r storage.Reader, scope storage.TenantScope, label storage.LabelHash, bm *roaring.Bitmap) ([]uuid.UUID, error) {
	rows := bm.ToArray()
	out := make([]uuid.UUID, len(rows))
	if err := ix.resolve(r, scope, label, rows, out); err != nil {
		return nil, err
	}
	return out, nil
}

// resolve sets out[i] to the logical id of rows[i]. A query through the
// index's own engine goes through the row cache; one through a snapshot
// reads the snapshot's id map rows, since the cache follows the engine's
// present, which an old snapshot may predate (a wipe restarts row ids).
func (ix *Index) resolve(r storage.Reader, scope storage.TenantScope, label storage.LabelHash, rows []uint32, out []uuid.UUID) error {
	if ix.cached(r) {
		return ix.rows.of(scope, label).resolve(r, scope, label, rows, out)
	}
	for i, row := range rows {
		id, err := rowID(r, scope, label, row)
		if err != nil {
			return err
		}
		out[i] = id
	}
	return nil
}

func rowID(r storage.Reader, scope storage.TenantScope, label storage.LabelHash, row uint32) (uuid.UUID, error) {
	v, err := r.Get(storage.BitmapIDMapKey(scope, label, row))
	if errors.Is(err, storage.ErrNotFound) {
		return uuid.Nil, fmt.Errorf("row %d has no id map row: %w", row, ErrBadValue)
	}
	if err != nil {
		return uuid.Nil, err
	}
	return decodeIDMap(v)
}
