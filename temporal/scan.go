package temporal

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// Cursor is where a tenant-wide temporal scan resumes: the last index row
// a page examined. The zero Cursor starts a scan.
//
// A cursor carries the scan it belongs to: its kind (ValidAt or
// ChangedBetween), its tenant and its parameters. Passing it to any other
// scan fails with ErrBadCursor, because an index key means something else
// in another index, and resuming a scan with other parameters after it
// would skip rows of its own.
type Cursor struct {
	scan  scan
	scope storage.TenantScope
	key   storage.Key
}

// scan identifies one tenant-wide scan within a tenant: its kind and
// parameters.
type scan struct {
	kind   scanKind
	lo, hi storage.Timestamp // ValidAt: a.Valid, a.Tx; ChangedBetween: from, to
}

type scanKind uint8

const (
	scanValidAt scanKind = iota + 1
	scanChangedBetween
)

func (k scanKind) String() string {
	switch k {
	case scanValidAt:
		return "ValidAt"
	case scanChangedBetween:
		return "ChangedBetween"
	}
	return "no scan"
}

// resume checks that c may resume sc in scope: the zero Cursor starts any
// scan; any other cursor must come from the same scan.
func (c Cursor) resume(sc scan, scope storage.TenantScope) error {
	switch {
	case c == Cursor{}:
		return nil
	case c.scan.kind != sc.kind:
		return fmt.Errorf("resume %s with a cursor of %s: %w", sc.kind, c.scan.kind, ErrBadCursor)
	case c.scope != scope:
		return fmt.Errorf("resume %s in %s with a cursor of %s: %w", sc.kind, scope, c.scope, ErrBadCursor)
	case c.scan != sc:
		return fmt.Errorf("resume %s(%s, %s) with a cursor of %s(%s, %s): %w", sc.kind, sc.lo, sc.hi, c.scan.kind, c.scan.lo, c.scan.hi, ErrBadCursor)
	}
	return nil
}

// Page is one page of a tenant-wide temporal scan.
type Page struct {
	// Versions are the live versions found, in index order.
	Versions []Version
	// Next resumes the scan strictly after the last index row examined;
	// the zero Cursor when Done.
	Next Cursor
	// Done reports that the scan reached its end.
	Done bool
}

// ValidAt pages through every node and edge version true at a.Valid as
// known at a.Tx, through valid_time_index: the rows with valid start at or
// before a.Valid, latest first. Each index hit is validated by a point
// lookup of the primary key it stores. Pass the zero Cursor to start and
// Page.Next to resume; a page holds at most limit versions.
//
// Resuming never repeats or skips a version: the cursor is an index key,
// index keys are never rewritten, and the answer at a fixed AsOf with
// a.Tx in the past does not change when later writes land.
func (s *Store) ValidAt(scope storage.TenantScope, a AsOf, cursor Cursor, limit int) (Page, error) {
	sc := scan{kind: scanValidAt, lo: a.Valid, hi: a.Tx}
	if err := s.checkPage(sc, scope, cursor, limit); err != nil {
		return Page{}, err
	}
	r := storage.ValidTimeFrom(scope, a.Valid)
	keep := func(p storage.TemporalIndexParts) (bool, bool) {
		return p.ValidStart <= a.Valid && p.TxStart <= a.Tx, false
	}
	match := func(v *Version) bool { return v.visibleAt(a) && !v.Tombstone }
	return s.page(sc, scope, r, storage.DecodeValidTimeIndex, keep, match, cursor, limit)
}

// ChangedBetween pages through every node and edge version written by a
// transaction in [from, to], latest first, through tx_time_index:
// assertions, corrections, the re-asserted remainders of corrected
// versions, and tombstones. Cursor and limit work as for ValidAt.
func (s *Store) ChangedBetween(scope storage.TenantScope, from, to storage.Timestamp, cursor Cursor, limit int) (Page, error) {
	sc := scan{kind: scanChangedBetween, lo: from, hi: to}
	if err := s.checkPage(sc, scope, cursor, limit); err != nil {
		return Page{}, err
	}
	r, err := storage.TxTimeBetween(scope, from, to)
	if errors.Is(err, storage.ErrEmptyRange) {
		return Page{Done: true}, nil
	}
	if err != nil {
		return Page{}, fmt.Errorf("changed between %s and %s: %w", from, to, err)
	}
	keep := func(p storage.TemporalIndexParts) (bool, bool) {
		return p.TxStart <= to && p.TxStart >= from, p.TxStart < from
	}
	match := func(*Version) bool { return true }
	return s.page(sc, scope, r, storage.DecodeTxTimeIndex, keep, match, cursor, limit)
}

// checkPage rejects the zero scope, a limit below one and a cursor of
// another scan, before any range is built.
func (s *Store) checkPage(sc scan, scope storage.TenantScope, cursor Cursor, limit int) error {
	if err := s.check(scope); err != nil {
		return err
	}
	if limit < 1 {
		return fmt.Errorf("temporal scan page of %d: %w", limit, ErrBadLimit)
	}
	return cursor.resume(sc, scope)
}

// page runs one page of scan sc over r, or over the rest of the tenant's
// index after cursor, which checkPage has accepted. keep decides from the
// index key alone whether a row is a candidate and whether the scan is
// past its end; match decides on the validated version.
func (s *Store) page(
	sc scan,
	scope storage.TenantScope,
	r storage.ScanRange,
	decode func([]byte) (storage.TemporalIndexParts, error),
	keep func(storage.TemporalIndexParts) (candidate, stop bool),
	match func(*Version) bool,
	cursor Cursor,
	limit int,
) (Page, error) {
	if cursor.key.Valid() {
		var err error
		if r, err = storage.TemporalIndexAfter(scope, cursor.key); err != nil {
			return Page{}, fmt.Errorf("resume temporal scan: %w", err)
		}
	}
	// One snapshot serves the index scan and the point lookups, so that a
	// page is consistent even for a.Tx = Forever while writes land.
	snap, err := s.engine.Snapshot()
	if err != nil {
		return Page{}, fmt.Errorf("temporal scan: %w", err)
	}
	defer snap.Close()
	var pg Page
	var last []byte
	for kv, err := range snap.Scan(r) {
		if err != nil {
			return Page{}, fmt.Errorf("temporal scan of %s: %w", r.Family(), err)
		}
		p, err := decode(kv.Key)
		if err != nil {
			return Page{}, fmt.Errorf("temporal scan: %w", err)
		}
		candidate, stop := keep(p)
		if stop {
			return Page{Versions: pg.Versions, Done: true}, nil
		}
		last = kv.Key
		if !candidate {
			continue
		}
		v, ok, err := validate(snap, scope, p, kv.Value)
		if err != nil {
			return Page{}, err
		}
		if ok && match(&v) {
			pg.Versions = append(pg.Versions, v)
			if len(pg.Versions) == limit {
				break
			}
		}
	}
	if len(pg.Versions) < limit {
		return Page{Versions: pg.Versions, Done: true}, nil
	}
	next, err := storage.ParseKey(scope, r.Family(), last)
	if err != nil {
		return Page{}, fmt.Errorf("temporal scan cursor: %w", err)
	}
	pg.Next = Cursor{scan: sc, scope: scope, key: next}
	return pg, nil
}

// validate resolves one index hit by a point lookup of the primary key it
// stores. ok is false for a dangling hit (no primary row).
func validate(rd storage.Reader, scope storage.TenantScope, p storage.TemporalIndexParts, primary []byte) (Version, bool, error) {
	key, err := storage.ParseKey(scope, p.Kind.Family(), primary)
	if err != nil {
		return Version{}, false, fmt.Errorf("index hit %s: %w", p, err)
	}
	val, err := rd.Get(key)
	if notFound(err) {
		return Version{}, false, nil
	}
	if err != nil {
		return Version{}, false, fmt.Errorf("index hit %s: %w", p, err)
	}
	v, err := decodeVersionRow(entityOf(p.Kind), storage.KV{Key: primary, Value: val})
	if err != nil {
		return Version{}, false, fmt.Errorf("index hit %s: %w", p, err)
	}
	if v.ID != p.ID || v.Valid.Start != p.ValidStart || v.TxStart != p.TxStart {
		return Version{}, false, fmt.Errorf("index hit %s points at %s: %w", p, key, ErrCorrupt)
	}
	return v, true, nil
}
