package sources

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Trace is the record of what one graph or vector query returned: the
// audit trail of what was shown, and to whom (a parameter such as "user").
type Trace struct {
	ID       uuid.UUID         // set by RecordTrace when nil: a UUIDv7, so traces list in the order recorded
	Query    string            // what ran: "graph.neighbors", "vector.knn"
	AsOf     storage.Timestamp // the time the query read the store as of
	Params   map[string]string // the query's parameters, by name
	Results  []uuid.UUID       // the ids it returned, in the order returned
	Recorded storage.Timestamp // set by RecordTrace
}

// The limits of a trace, so that a value always fits every engine.
const (
	MaxQueryLen   = 256
	MaxParams     = 256
	MaxParamLen   = 4 << 10
	MaxTraceItems = 1 << 16
)

func (t Trace) check() error {
	switch {
	case t.Query == "" || len(t.Query) > MaxQueryLen:
		return fmt.Errorf("trace query name of %d bytes (1 to %d): %w", len(t.Query), MaxQueryLen, ErrBadTrace)
	case len(t.Params) > MaxParams:
		return fmt.Errorf("trace of %d parameters (at most %d): %w", len(t.Params), MaxParams, ErrBadTrace)
	case len(t.Results) > MaxTraceItems:
		return fmt.Errorf("trace of %d results (at most %d): %w", len(t.Results), MaxTraceItems, ErrBadTrace)
	}
	for k, v := range t.Params {
		if k == "" || len(k) > MaxParamLen || len(v) > MaxParamLen {
			return fmt.Errorf("trace parameter %.32q: name of 1 to %d bytes, value of at most %d: %w", k, MaxParamLen, MaxParamLen, ErrBadTrace)
		}
	}
	return nil
}

// appendTrace appends the value of a trace row:
//
//	[format 1][recorded 8][as of 8][query][params: count 4, (name, value)...][results: count 4, id 16...]
//
// with strings length-prefixed (4 bytes) and parameters sorted by name.
func appendTrace(dst []byte, t Trace) []byte {
	dst = appendTime(appendTime(append(dst, valueFormat), t.Recorded), t.AsOf)
	dst = appendStr(dst, t.Query)
	dst = appendU32(dst, uint32(len(t.Params)))
	for _, k := range slices.Sorted(maps.Keys(t.Params)) {
		dst = appendStr(appendStr(dst, k), t.Params[k])
	}
	dst = appendU32(dst, uint32(len(t.Results)))
	for _, id := range t.Results {
		dst = append(dst, id[:]...)
	}
	return dst
}

// decodeTrace decodes the value of trace id.
func decodeTrace(id uuid.UUID, v []byte) (Trace, error) {
	r := newReader("trace", v)
	t := Trace{ID: id, Recorded: r.time(), AsOf: r.time(), Query: r.str(MaxQueryLen)}
	n := r.count(8)
	if n > 0 {
		t.Params = make(map[string]string, n)
	}
	prev := ""
	for i := range n {
		k, v := r.str(MaxParamLen), r.str(MaxParamLen)
		if r.err == nil && (k == "" || i > 0 && k <= prev) {
			r.fail("parameter %d (%.32q) empty or out of order", i, k)
		}
		t.Params[k], prev = v, k
	}
	if m := r.count(16); m > 0 {
		t.Results = make([]uuid.UUID, m)
		for i := range t.Results {
			t.Results[i] = r.id()
		}
	}
	if err := r.end(); err != nil {
		return Trace{}, fmt.Errorf("trace %s: %w", id, err)
	}
	if err := t.check(); err != nil {
		return Trace{}, fmt.Errorf("trace %s: %w: %w", id, ErrCorrupt, err)
	}
	return t, nil
}

// RecordTrace stores trace t for tenant s and returns it as stored, with
// its id and recording time. A trace id already recorded is refused:
// traces are an audit trail, never rewritten.
func (s *Store) RecordTrace(scope storage.TenantScope, t Trace) (Trace, error) {
	if err := t.check(); err != nil {
		return Trace{}, fmt.Errorf("record trace: %w", err)
	}
	if t.ID == uuid.Nil {
		id, err := uuid.NewV7()
		if err != nil {
			return Trace{}, fmt.Errorf("record trace: %w", err)
		}
		t.ID = id
	}
	t.Params = maps.Clone(t.Params)
	t.Results = slices.Clone(t.Results)
	t.Recorded = storage.TimestampOf(s.now())
	k := storage.TraceKey(scope, t.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch _, err := s.engine.Get(k); {
	case err == nil:
		return Trace{}, fmt.Errorf("record trace %s: %w", t.ID, ErrTraceExists)
	case !errors.Is(err, storage.ErrNotFound):
		return Trace{}, fmt.Errorf("record trace %s: %w", t.ID, err)
	}
	// Another process may record the id meanwhile: the batch requires it
	// absent still.
	var b storage.Batch
	b.RequireAbsent(k)
	b.Put(k, appendTrace(nil, t))
	err := s.apply(&b, false)
	if errors.Is(err, storage.ErrConflict) {
		if _, gerr := s.engine.Get(k); gerr == nil {
			err = ErrTraceExists
		}
	}
	if err != nil {
		return Trace{}, fmt.Errorf("record trace %s: %w", t.ID, err)
	}
	return t, nil
}

// Trace returns trace id of tenant s, or ErrNoTrace.
func (s *Store) Trace(scope storage.TenantScope, id uuid.UUID) (Trace, error) {
	v, err := s.engine.Get(storage.TraceKey(scope, id))
	if errors.Is(err, storage.ErrNotFound) {
		return Trace{}, fmt.Errorf("trace %s: %w", id, ErrNoTrace)
	}
	if err != nil {
		return Trace{}, fmt.Errorf("trace %s: %w", id, err)
	}
	return decodeTrace(id, v)
}

// Traces yields the traces of tenant s in the order of their ids (for
// ids RecordTrace chose, the order recorded), from the first whose id is
// above after (uuid.Nil: from the start). It yields at most one error, as
// its last element.
func (s *Store) Traces(scope storage.TenantScope, after uuid.UUID) iter.Seq2[Trace, error] {
	return func(yield func(Trace, error) bool) {
		r := storage.TenantAll(scope, storage.Traces)
		if after != uuid.Nil {
			var err error
			if r, err = storage.TenantAllAfterEntity(scope, storage.Traces, after); err != nil {
				if !errors.Is(err, storage.ErrEmptyRange) {
					yield(Trace{}, fmt.Errorf("traces: %w", err))
				}
				return
			}
		}
		for kv, err := range s.engine.Scan(r) {
			var t Trace
			if err == nil {
				t, err = decodeTraceRow(kv)
			}
			if err != nil {
				yield(Trace{}, fmt.Errorf("traces: %w", err))
				return
			}
			if !yield(t, nil) {
				return
			}
		}
	}
}

func decodeTraceRow(kv storage.KV) (Trace, error) {
	k, err := storage.DecodeTrace(kv.Key)
	if err != nil {
		return Trace{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return decodeTrace(k.Query, kv.Value)
}
