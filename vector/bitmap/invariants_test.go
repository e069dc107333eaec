package bitmap

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// checkInvariants reads every row of one (tenant, label) and checks that
// they agree: id map and rev map are inverse, every posting row is backed
// by a rev map entry with that bucket and vice versa, no posting is empty,
// rows lie below the watermark, and each counter equals the number of
// equality postings of its property (or is Overflow, with none left).
func checkInvariants(r storage.Reader, scope storage.TenantScope, label string) error {
	var (
		next     uint32
		idOf     = map[uint32]uuid.UUID{}
		revs     = map[uuid.UUID]revMap{}
		postings = map[[2]uint64]*roaring.Bitmap{}
		counters = map[storage.PropertyHash]uint32{}
	)
	for kv, err := range r.Scan(storage.BitmapLabelRange(scope, storage.HashLabel(label))) {
		if err != nil {
			return err
		}
		p, err := storage.DecodeBitmap(kv.Key)
		if err != nil {
			return err
		}
		switch p.Kind {
		case storage.BitmapAlloc:
			next, err = decodeAlloc(kv.Value)
		case storage.BitmapIDMap:
			idOf[p.Row], err = decodeIDMap(kv.Value)
		case storage.BitmapRevMap:
			revs[p.ID], err = decodeRevMap(kv.Value)
		case storage.BitmapPosting:
			postings[[2]uint64{uint64(p.Property), uint64(p.Bucket)}], err = decodePosting(kv.Value)
		case storage.BitmapPropCounter:
			counters[p.Property], err = decodeCounter(kv.Value)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if len(idOf) != len(revs) {
		return fmt.Errorf("%d id map rows, %d rev map rows", len(idOf), len(revs))
	}
	want := map[[2]uint64]*roaring.Bitmap{}
	wantBucket := func(prop storage.PropertyHash, b storage.BucketHash, row uint32) {
		k := [2]uint64{uint64(prop), uint64(b)}
		if want[k] == nil {
			want[k] = roaring.New()
		}
		want[k].Add(row)
	}
	for id, rm := range revs {
		if idOf[rm.row] != id {
			return fmt.Errorf("rev map %s -> row %d, id map row %d -> %s", id, rm.row, rm.row, idOf[rm.row])
		}
		if rm.row >= next {
			return fmt.Errorf("row %d at or above watermark %d", rm.row, next)
		}
		for _, e := range rm.entries {
			if b, ok := e.bandBucket(); ok {
				wantBucket(e.prop, b, rm.row)
			}
			if counters[e.prop] != Overflow {
				wantBucket(e.prop, e.equalBucket(), rm.row)
			}
		}
	}
	for k, bm := range postings {
		if w := want[k]; w == nil || !w.Equals(bm) {
			return fmt.Errorf("posting %x holds %v, rev maps say %v", k, bm.ToArray(), w)
		}
	}
	eqCount := map[storage.PropertyHash]uint32{}
	for k, w := range want {
		if postings[k] == nil {
			return fmt.Errorf("posting %x missing, rev maps say %v", k, w.ToArray())
		}
		if !bandBuckets[storage.BucketHash(k[1])] {
			eqCount[storage.PropertyHash(k[0])]++
		}
	}
	for prop, n := range counters {
		if n != Overflow && n != eqCount[prop] {
			return fmt.Errorf("counter of %x is %d, %d equality postings", prop, n, eqCount[prop])
		}
	}
	return nil
}
