package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// Counters are what the processes sharing one store (several replicas on
// one etcd cluster, an operator's CLI beside them) must agree on: a
// tenant's transaction clock, the generation its caches are validated
// against, the sequence of its vectors under a model, the registrations of
// the deployment's tenant registry and model registry. Each is one row of
// the system namespace (SystemScope.CounterKey), holding a number that
// only moves forward, and each move is a conditional batch: the batch
// requires the row to hold what the mover read (or to be absent, for a
// counter never moved) and puts the new number, so that of two processes
// that read one value only one moves it, and the other gets ErrConflict,
// reads again and decides again. A batch that moves a counter carries the
// writes the move stands for, so that the counter and what it counts land
// together or not at all.
//
// The rows live in the system namespace so that a tenant wipe or erasure,
// which deletes the tenant's own rows, leaves them: a clock or a
// generation that went back to zero with the rows would hand out times or
// generations already used. They hold a number and nothing of the
// tenant's data.

// CounterName names a counter: the counter field of its key.
type CounterName uint64

// The counters. A tenant's are owned by its TenantRecordID, the
// deployment's by the nil UUID.
const (
	// CounterTxClock is a tenant's transaction clock: the latest
	// transaction time handed out, ordered (see Counter.Time).
	CounterTxClock CounterName = 1
	// CounterGeneration is a tenant's cache generation, moved on by every
	// change that invalidates what a process caches of the tenant: a
	// wipe, an erasure, an import.
	CounterGeneration CounterName = 2
	// CounterVectors is the sequence of a tenant's vector writes under one
	// model (the counter's id), which the in-memory indexes follow.
	CounterVectors CounterName = 3
	// CounterTenants is the deployment's tenant registry: moved on by
	// every registration and state change.
	CounterTenants CounterName = 4
	// CounterModel is one embedding model's registrations (the counter's
	// id is the model id).
	CounterModel CounterName = 5
)

// counterValueVersion is the version byte of a counter's value, which is
// [0x01][value, 8 bytes big-endian].
const (
	counterValueVersion = 1
	counterValueLen     = 1 + 8
)

// ErrCounterBackward reports a counter asked to move to a number at or
// below the one it holds: counters only move forward.
var ErrCounterBackward = errors.New("a counter moves only forward")

// Counter is one counter as read: the row and the number it held (0 for a
// row never written). Move it with Batch.AdvanceCounter, or make a batch
// conditional on it with Batch.RequireCounter. The zero Counter is not a
// counter: a batch refuses it with ErrInvalidKey.
type Counter struct {
	key    Key
	value  uint64
	exists bool
}

// Value returns the number the counter held when read.
func (c Counter) Value() uint64 { return c.value }

// Time returns the number as a transaction time, the CounterTxClock
// encoding: MinTimestamp for a clock never advanced.
func (c Counter) Time() Timestamp { return fromOrdered(c.value) }

// Advanced returns the counter as it reads once a batch that advanced c
// to v has landed.
func (c Counter) Advanced(v uint64) Counter { return Counter{key: c.key, value: v, exists: true} }

// AdvancedTo returns the clock counter as it reads once a batch that
// advanced c to t has landed.
func (c Counter) AdvancedTo(t Timestamp) Counter { return c.Advanced(ordered(t)) }

// tenantCounter returns the key of a counter of tenant s.
func tenantCounter(s TenantScope, name CounterName, id uint64) (Key, error) {
	if s.IsZero() {
		return Key{}, fmt.Errorf("counter %d: %w", name, ErrNilScope)
	}
	return SystemScope{}.CounterKey(TenantRecordID(s), name, id), nil
}

// ReadTxClock reads the transaction clock of tenant s.
func ReadTxClock(r Reader, s TenantScope) (Counter, error) {
	return readTenantCounter(r, s, CounterTxClock, 0)
}

// ReadGeneration reads the cache generation of tenant s.
func ReadGeneration(r Reader, s TenantScope) (Counter, error) {
	return readTenantCounter(r, s, CounterGeneration, 0)
}

// ReadVectorsSequence reads the sequence of tenant s's vector writes under
// model.
func ReadVectorsSequence(r Reader, s TenantScope, model ModelID) (Counter, error) {
	return readTenantCounter(r, s, CounterVectors, uint64(model))
}

func readTenantCounter(r Reader, s TenantScope, name CounterName, id uint64) (Counter, error) {
	k, err := tenantCounter(s, name, id)
	if err != nil {
		return Counter{}, err
	}
	c, err := readCounter(r, k)
	if err != nil {
		return Counter{}, fmt.Errorf("read counter %d of %s: %w", name, s, err)
	}
	return c, nil
}

// TenantCounters are the counters of one tenant as one scan read them
// (SystemScope.Counters): one request, for a caller that needs several.
type TenantCounters struct {
	scope      TenantScope
	Clock      Counter
	Generation Counter
	vectors    map[ModelID]Counter
}

// Vectors returns the tenant's vectors sequence of model, as read.
func (tc TenantCounters) Vectors(model ModelID) Counter {
	if c, ok := tc.vectors[model]; ok {
		return c
	}
	k, _ := tenantCounter(tc.scope, CounterVectors, uint64(model))
	return Counter{key: k}
}

// ReadTenantCounters reads every counter of tenant s in one scan.
func ReadTenantCounters(r Reader, s TenantScope) (TenantCounters, error) {
	if s.IsZero() {
		return TenantCounters{}, fmt.Errorf("read counters: %w", ErrNilScope)
	}
	if r == nil {
		return TenantCounters{}, fmt.Errorf("read counters of %s: %w", s, ErrNotOpen)
	}
	clock, _ := tenantCounter(s, CounterTxClock, 0)
	gen, _ := tenantCounter(s, CounterGeneration, 0)
	tc := TenantCounters{scope: s, Clock: Counter{key: clock}, Generation: Counter{key: gen}}
	for kv, err := range r.Scan(SystemScope{}.Counters(TenantRecordID(s))) {
		if err != nil {
			return TenantCounters{}, fmt.Errorf("read counters of %s: %w", s, err)
		}
		p, err := DecodeSpan(kv.Key)
		if err != nil {
			return TenantCounters{}, fmt.Errorf("read counters of %s: %w", s, err)
		}
		n, err := DecodeCounterValue(kv.Value)
		if err != nil {
			return TenantCounters{}, fmt.Errorf("read counter %d of %s: %w", p.Start, s, err)
		}
		var k Key
		k.SetCounter(SystemScope{}, p.Source, CounterName(p.Start), p.End)
		c := Counter{key: k, value: n, exists: true}
		switch CounterName(p.Start) {
		case CounterTxClock:
			tc.Clock = c
		case CounterGeneration:
			tc.Generation = c
		case CounterVectors:
			if tc.vectors == nil {
				tc.vectors = make(map[ModelID]Counter)
			}
			tc.vectors[ModelID(p.End)] = c
		}
	}
	return tc, nil
}

// ReadCounter reads a deployment-wide counter (owner nil).
//
//telha:restricted system use the tenant registry in telha.dev/core/storage/system/tenants or the model registry in telha.dev/core/storage/system/models
func (s SystemScope) ReadCounter(r Reader, name CounterName, id uint64) (Counter, error) {
	c, err := readCounter(r, s.CounterKey(uuid.Nil, name, id))
	if err != nil {
		return Counter{}, fmt.Errorf("read deployment counter %d/%d: %w", name, id, err)
	}
	return c, nil
}

// readCounter reads the counter at k.
func readCounter(r Reader, k Key) (Counter, error) {
	if r == nil {
		return Counter{}, ErrNotOpen
	}
	v, err := r.Get(k)
	if errors.Is(err, ErrNotFound) {
		return Counter{key: k}, nil
	}
	if err != nil {
		return Counter{}, err
	}
	n, err := DecodeCounterValue(v)
	if err != nil {
		return Counter{}, err
	}
	return Counter{key: k, value: n, exists: true}, nil
}

// DecodeCounterValue decodes a counter row's value: [0x01][8 bytes,
// big-endian]. Anything else is ErrCorrupt.
func DecodeCounterValue(v []byte) (uint64, error) {
	switch {
	case len(v) != counterValueLen:
		return 0, fmt.Errorf("counter value of %d bytes, want %d: %w", len(v), counterValueLen, ErrCorrupt)
	case v[0] != counterValueVersion:
		return 0, fmt.Errorf("counter value version %d, want %d: %w", v[0], counterValueVersion, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v[1:]), nil
}

// appendCounterValue appends the value of a counter holding n.
func appendCounterValue(b []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(append(b, counterValueVersion), n)
}

// RequireCounter makes b conditional on counter c still holding what it
// held when read (or still being absent).
func (b *Batch) RequireCounter(c Counter) {
	if c.exists {
		b.RequireValue(c.key, appendCounterValue(nil, c.value))
	} else {
		b.RequireAbsent(c.key)
	}
}

// AdvanceCounter moves counter c to v in b: b is conditional on c holding
// what it held when read, and puts v. A v at or below c.Value() poisons b
// with ErrCounterBackward.
func (b *Batch) AdvanceCounter(c Counter, v uint64) {
	if b == nil || b.err != nil {
		return
	}
	if v <= c.value {
		b.err = fmt.Errorf("batch: counter from %d to %d: %w", c.value, v, ErrCounterBackward)
		return
	}
	b.RequireCounter(c)
	b.Put(c.key, appendCounterValue(nil, v))
}

// AdvanceTxClock moves the clock counter c to transaction time t in b, as
// AdvanceCounter does: t must be after c.Time().
func (b *Batch) AdvanceTxClock(c Counter, t Timestamp) { b.AdvanceCounter(c, ordered(t)) }
