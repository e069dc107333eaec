package storage

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// Benchmarks: go test -run '^$' -bench . -benchmem ./storage/
//
// BenchmarkEncode pairs every fixed-width key setter writing into a
// preallocated Key (impl=codec) with a hand-written encoding/binary baseline
// that fills a preallocated buffer (impl=baseline); compare them with
// benchstat -col /impl. Each side runs its own loop, so the setter inlines
// into it exactly as it would at a call site. BenchmarkEncodeValue measures
// the function form, which returns a new Key.

// Sinks keep results alive so that nothing is optimized away.
var (
	sinkKey   Key
	sinkBuf   = make([]byte, MaxKeyLen)
	sinkRange ScanRange
	sinkErr   error
)

// benchInput is one set of constructor arguments. The loops cycle through
// eight of them, read from memory, so the compiler cannot fold them.
type benchInput struct {
	s      TenantScope
	a, b   uuid.UUID
	v, x   Timestamp
	h1, h2 uint64
	h3     uint64
	row    uint32
	state  JobState
	prio   uint8
	kind   IndexKind
}

var benchInputs = func() (in [8]benchInput) {
	for i := range in {
		n := uint64(i + 1)
		in[i] = benchInput{
			s: neighbour(fxS, i%2 == 0), a: fxA, b: fxB,
			v: fxValid + Timestamp(i), x: fxTx - Timestamp(i),
			h1: uint64(fxEdgeType) * n, h2: uint64(fxProperty) + n, h3: uint64(fxBucket) - n,
			row: fxRow + uint32(i), state: JobQueued + JobState(i%5), prio: uint8(i), kind: IndexKind(i % 2),
		}
		in[i].a[15], in[i].b[0] = byte(i), byte(i)
	}
	return in
}()

// Hand-written baselines: the same bytes as the codec, by fixed offsets with
// encoding/binary, into a preallocated []byte. Each takes exactly the
// arguments of its setter, by value, so that both sides pay the same to
// receive their inputs and the comparison is of the encoding alone.

func baseInv(t Timestamp) uint64 { return ^(uint64(t) ^ 1<<63) }

func baseVersion(dst []byte, s TenantScope, id uuid.UUID, valid, tx Timestamp) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], id[:])
	binary.BigEndian.PutUint64(dst[48:56], baseInv(valid))
	binary.BigEndian.PutUint64(dst[56:64], baseInv(tx))
}

func baseAdjacency(dst []byte, s TenantScope, anchor uuid.UUID, edgeType EdgeTypeHash, valid, tx Timestamp, neighbor uuid.UUID) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], anchor[:])
	binary.BigEndian.PutUint64(dst[48:56], uint64(edgeType))
	binary.BigEndian.PutUint64(dst[56:64], baseInv(valid))
	binary.BigEndian.PutUint64(dst[64:72], baseInv(tx))
	copy(dst[72:88], neighbor[:])
}

func baseTemporalIndex(dst []byte, s TenantScope, first, second Timestamp, id uuid.UUID, kind IndexKind) {
	*(*[32]byte)(dst[0:32]) = s.p
	binary.BigEndian.PutUint64(dst[32:40], baseInv(first))
	binary.BigEndian.PutUint64(dst[40:48], baseInv(second))
	copy(dst[48:64], id[:])
	dst[64] = byte(kind)
}

func baseVector(dst []byte, s TenantScope, node uuid.UUID, model ModelID, valid, tx Timestamp) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], node[:])
	binary.BigEndian.PutUint64(dst[48:56], uint64(model))
	binary.BigEndian.PutUint64(dst[56:64], baseInv(valid))
	binary.BigEndian.PutUint64(dst[64:72], baseInv(tx))
}

func baseSchema(dst []byte, s TenantScope, label LabelHash, tx Timestamp) {
	*(*[32]byte)(dst[0:32]) = s.p
	binary.BigEndian.PutUint64(dst[32:40], uint64(label))
	binary.BigEndian.PutUint64(dst[40:48], baseInv(tx))
}

func baseModel(dst []byte, model ModelID, tx Timestamp) {
	clear(dst[0:32])
	binary.BigEndian.PutUint64(dst[32:40], uint64(model))
	binary.BigEndian.PutUint64(dst[40:48], baseInv(tx))
}

func baseSource(dst []byte, s TenantScope, id uuid.UUID, tx Timestamp) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], id[:])
	binary.BigEndian.PutUint64(dst[48:56], baseInv(tx))
}

func baseRedaction(dst []byte, s TenantScope, blob uuid.UUID) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], blob[:])
	binary.BigEndian.PutUint64(dst[48:56], 0)
}

func baseSpan(dst []byte, s TenantScope, id uuid.UUID, start, end uint64) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], id[:])
	binary.BigEndian.PutUint64(dst[48:56], start)
	binary.BigEndian.PutUint64(dst[56:64], end)
}

func baseTrace(dst []byte, s TenantScope, query uuid.UUID) {
	*(*[32]byte)(dst[0:32]) = s.p
	copy(dst[32:48], query[:])
}

func baseJob(dst []byte, s TenantScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	*(*[32]byte)(dst[0:32]) = s.p
	baseJobTail(dst, state, priority, created, id)
}

func baseSystemJob(dst []byte, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	clear(dst[0:32])
	baseJobTail(dst, state, priority, created, id)
}

func baseJobTail(dst []byte, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	dst[32], dst[33] = byte(state), priority
	binary.BigEndian.PutUint64(dst[34:42], uint64(created)^1<<63)
	copy(dst[42:58], id[:])
}

func baseBitmap(dst []byte, s TenantScope, label LabelHash, kind BitmapKind) {
	*(*[32]byte)(dst[0:32]) = s.p
	binary.BigEndian.PutUint64(dst[32:40], uint64(label))
	dst[40] = byte(kind)
}

func baseBitmapIDMap(dst []byte, s TenantScope, label LabelHash, row uint32) {
	baseBitmap(dst, s, label, BitmapIDMap)
	binary.BigEndian.PutUint32(dst[41:45], row)
}

func baseBitmapRevMap(dst []byte, s TenantScope, label LabelHash, id uuid.UUID) {
	baseBitmap(dst, s, label, BitmapRevMap)
	copy(dst[41:57], id[:])
}

func baseBitmapPosting(dst []byte, s TenantScope, label LabelHash, property PropertyHash, bucket BucketHash) {
	baseBitmap(dst, s, label, BitmapPosting)
	binary.BigEndian.PutUint64(dst[41:49], uint64(property))
	binary.BigEndian.PutUint64(dst[49:57], uint64(bucket))
}

func baseBitmapPropCounter(dst []byte, s TenantScope, label LabelHash, property PropertyHash) {
	baseBitmap(dst, s, label, BitmapPropCounter)
	binary.BigEndian.PutUint64(dst[41:49], uint64(property))
}

// benchPair runs the codec and the baseline loops of one key shape, after
// checking that one call of each writes the same bytes. Each loop function
// runs n iterations over benchInputs.
func benchPair(b *testing.B, name string, codec, baseline func(n int)) {
	codec(1)
	baseline(1)
	if !bytes.Equal(sinkKey.Bytes(), sinkBuf[:sinkKey.Len()]) || !sinkKey.Valid() {
		b.Fatalf("%s: codec %x, baseline %x", name, sinkKey.Bytes(), sinkBuf)
	}
	b.Run(name+"/impl=codec", func(b *testing.B) { b.ReportAllocs(); codec(b.N) })
	b.Run(name+"/impl=baseline", func(b *testing.B) { b.ReportAllocs(); baseline(b.N) })
}

func BenchmarkEncode(b *testing.B) {
	in, sys := &benchInputs, SystemScope{}
	benchPair(b, "shape=NodeVersionKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetNodeVersion(x.s, x.a, x.v, x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseVersion(sinkBuf, x.s, x.a, x.v, x.x)
			}
		})
	benchPair(b, "shape=EdgeVersionKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetEdgeVersion(x.s, x.a, x.v, x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseVersion(sinkBuf, x.s, x.a, x.v, x.x)
			}
		})
	benchPair(b, "shape=AdjacencyOutKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetAdjacencyOut(x.s, x.a, EdgeTypeHash(x.h1), x.v, x.x, x.b)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseAdjacency(sinkBuf, x.s, x.a, EdgeTypeHash(x.h1), x.v, x.x, x.b)
			}
		})
	benchPair(b, "shape=AdjacencyInKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetAdjacencyIn(x.s, x.a, EdgeTypeHash(x.h1), x.v, x.x, x.b)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseAdjacency(sinkBuf, x.s, x.a, EdgeTypeHash(x.h1), x.v, x.x, x.b)
			}
		})
	benchPair(b, "shape=ValidTimeIndexKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetValidTimeIndex(x.s, x.v, x.x, x.a, x.kind)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseTemporalIndex(sinkBuf, x.s, x.v, x.x, x.a, x.kind)
			}
		})
	benchPair(b, "shape=TxTimeIndexKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetTxTimeIndex(x.s, x.v, x.x, x.a, x.kind)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseTemporalIndex(sinkBuf, x.s, x.v, x.x, x.a, x.kind)
			}
		})
	benchPair(b, "shape=VectorKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetVector(x.s, x.a, ModelID(x.h1), x.v, x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseVector(sinkBuf, x.s, x.a, ModelID(x.h1), x.v, x.x)
			}
		})
	benchPair(b, "shape=SchemaKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetSchema(x.s, LabelHash(x.h1), x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseSchema(sinkBuf, x.s, LabelHash(x.h1), x.x)
			}
		})
	benchPair(b, "shape=VectorModelKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetVectorModel(sys, ModelID(x.h1), x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseModel(sinkBuf, ModelID(x.h1), x.x)
			}
		})
	benchPair(b, "shape=SourceKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetSource(x.s, x.a, x.x)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseSource(sinkBuf, x.s, x.a, x.x)
			}
		})
	benchPair(b, "shape=RedactionRecordKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetRedactionRecord(x.s, x.a)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseRedaction(sinkBuf, x.s, x.a)
			}
		})
	benchPair(b, "shape=SpanKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetSpan(x.s, x.a, x.h1, x.h2)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseSpan(sinkBuf, x.s, x.a, x.h1, x.h2)
			}
		})
	benchPair(b, "shape=TraceKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetTrace(x.s, x.a)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseTrace(sinkBuf, x.s, x.a)
			}
		})
	benchPair(b, "shape=JobKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetJob(x.s, x.state, x.prio, x.v, x.a)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseJob(sinkBuf, x.s, x.state, x.prio, x.v, x.a)
			}
		})
	benchPair(b, "shape=SystemJobKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetSystemJob(sys, x.state, x.prio, x.v, x.a)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseSystemJob(sinkBuf, x.state, x.prio, x.v, x.a)
			}
		})
	benchPair(b, "shape=BitmapAllocKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetBitmapAlloc(x.s, LabelHash(x.h1))
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseBitmap(sinkBuf, x.s, LabelHash(x.h1), BitmapAlloc)
			}
		})
	benchPair(b, "shape=BitmapIDMapKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetBitmapIDMap(x.s, LabelHash(x.h1), x.row)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseBitmapIDMap(sinkBuf, x.s, LabelHash(x.h1), x.row)
			}
		})
	benchPair(b, "shape=BitmapRevMapKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetBitmapRevMap(x.s, LabelHash(x.h1), x.a)
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseBitmapRevMap(sinkBuf, x.s, LabelHash(x.h1), x.a)
			}
		})
	benchPair(b, "shape=BitmapPostingKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetBitmapPosting(x.s, LabelHash(x.h1), PropertyHash(x.h2), BucketHash(x.h3))
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseBitmapPosting(sinkBuf, x.s, LabelHash(x.h1), PropertyHash(x.h2), BucketHash(x.h3))
			}
		})
	benchPair(b, "shape=BitmapPropCounterKey",
		func(n int) {
			for i := range n {
				x := &in[i&7]
				sinkKey.SetBitmapPropCounter(x.s, LabelHash(x.h1), PropertyHash(x.h2))
			}
		},
		func(n int) {
			for i := range n {
				x := &in[i&7]
				baseBitmapPropCounter(sinkBuf, x.s, LabelHash(x.h1), PropertyHash(x.h2))
			}
		})
}

// BenchmarkEncodeValue measures the function form of the shortest and the
// longest tenant key, which zeroes and copies a whole Key value on top of
// the setter's work.
func BenchmarkEncodeValue(b *testing.B) {
	in := &benchInputs
	b.Run("shape=TraceKey", func(b *testing.B) {
		for i := range b.N {
			x := &in[i&7]
			sinkKey = TraceKey(x.s, x.a)
		}
	})
	b.Run("shape=AdjacencyOutKey", func(b *testing.B) {
		for i := range b.N {
			x := &in[i&7]
			sinkKey = AdjacencyOutKey(x.s, x.a, EdgeTypeHash(x.h1), x.v, x.x, x.b)
		}
	})
}

// BenchmarkDecode decodes the canonical key of every family.
func BenchmarkDecode(b *testing.B) {
	for _, d := range decoders {
		key := canonicalKey(d.family)
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				sinkErr = d.decode(key)
			}
		})
	}
}

// prefixRangeFixtures are direct calls of a prefix scan of each length
// and scope: every prefix scan shares their encoder.
func prefixRangeFixtures() []rangeFixture {
	return []rangeFixture{
		{"NodeHistory(S, A)", func() (ScanRange, error) { return NodeHistory(fxS, fxA), nil }},
		{"AdjacencyOutTypeRange(S, A, E)", func() (ScanRange, error) { return AdjacencyOutTypeRange(fxS, fxA, fxEdgeType), nil }},
		{"BitmapPostingsRange(S, L, P)", func() (ScanRange, error) { return BitmapPostingsRange(fxS, fxLabel, fxProperty), nil }},
		{"SystemScope.JobsInState(queued)", func() (ScanRange, error) { return SystemScope{}.JobsInState(JobQueued), nil }},
	}
}

// BenchmarkRange builds the special ranges and a prefix scan of each
// length.
func BenchmarkRange(b *testing.B) {
	for _, fx := range append(prefixRangeFixtures(), specialRangeFixtures()...) {
		if _, err := fx.build(); err != nil {
			continue // error paths format a message
		}
		b.Run(fx.call, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				sinkRange, sinkErr = fx.build()
			}
		})
	}
}

// Allocation budgets, counted (not timed) so they run with the tests:
// encoding and decoding never allocate; a range allocates at most once. The
// one exception is BlocklistKey, which hashes a keyed digest of any length
// with blake3: its input escapes to the heap once. The key fixtures, built
// through reflect, are charged what a reflect call of a function that does
// nothing and returns a Key costs.
func TestAllocs(t *testing.T) {
	keyCall := testing.AllocsPerRun(100, func() { reflect.ValueOf(func() Key { return Key{} }).Call(nil) })
	for _, fx := range keyFixtures() {
		budget := keyCall
		if fx.call == "BlocklistKey(S, D)" {
			budget++
		}
		if n := testing.AllocsPerRun(100, func() { sinkKey = fx.build() }); n > budget {
			t.Errorf("%s: %v allocations, want at most %v", fx.call, n-keyCall, budget-keyCall)
		}
	}
	for _, d := range decoders {
		key := canonicalKey(d.family)
		if n := testing.AllocsPerRun(100, func() { sinkErr = d.decode(key) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", d.name, n)
		}
	}
	for _, fx := range append(prefixRangeFixtures(), specialRangeFixtures()...) {
		if _, err := fx.build(); err != nil {
			continue // error paths format a message
		}
		if n := testing.AllocsPerRun(100, func() { sinkRange, sinkErr = fx.build() }); n > 1 {
			t.Errorf("%s: %v allocations, want at most 1", fx.call, n)
		}
	}
}
