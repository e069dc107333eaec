package storage

import (
	"bytes"
	"encoding/binary"
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
	tid    uuid.UUID // s.Tenant(), for the baselines
	oid    uuid.UUID // s.Organization(), for the baselines
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
		in[i].tid, in[i].oid = in[i].s.Tenant(), in[i].s.Organization()
		in[i].a[15], in[i].b[0] = byte(i), byte(i)
	}
	return in
}()

// Hand-written baselines: the same bytes as the codec, by fixed offsets.

func baseScope(dst []byte, x *benchInput) {
	copy(dst[0:16], x.tid[:])
	copy(dst[16:32], x.oid[:])
}

func baseInv(t Timestamp) uint64 { return ^(uint64(t) ^ 1<<63) }

func baseVersion(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], baseInv(x.v))
	binary.BigEndian.PutUint64(dst[56:64], baseInv(x.x))
}

func baseAdjacency(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], x.h1)
	binary.BigEndian.PutUint64(dst[56:64], baseInv(x.v))
	binary.BigEndian.PutUint64(dst[64:72], baseInv(x.x))
	copy(dst[72:88], x.b[:])
}

func baseTemporalIndex(dst []byte, x *benchInput) {
	baseScope(dst, x)
	binary.BigEndian.PutUint64(dst[32:40], baseInv(x.v))
	binary.BigEndian.PutUint64(dst[40:48], baseInv(x.x))
	copy(dst[48:64], x.a[:])
	dst[64] = byte(x.kind)
}

func baseVector(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], x.h1)
	binary.BigEndian.PutUint64(dst[56:64], baseInv(x.v))
	binary.BigEndian.PutUint64(dst[64:72], baseInv(x.x))
}

func baseSchema(dst []byte, x *benchInput) {
	baseScope(dst, x)
	binary.BigEndian.PutUint64(dst[32:40], x.h1)
	binary.BigEndian.PutUint64(dst[40:48], baseInv(x.x))
}

func baseModel(dst []byte, x *benchInput) {
	clear(dst[0:32])
	binary.BigEndian.PutUint64(dst[32:40], x.h1)
	binary.BigEndian.PutUint64(dst[40:48], baseInv(x.x))
}

func baseSource(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], baseInv(x.x))
}

func baseRedaction(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], 0)
}

func baseSpan(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
	binary.BigEndian.PutUint64(dst[48:56], x.h1)
	binary.BigEndian.PutUint64(dst[56:64], x.h2)
}

func baseTrace(dst []byte, x *benchInput) {
	baseScope(dst, x)
	copy(dst[32:48], x.a[:])
}

func baseJob(dst []byte, x *benchInput) {
	baseScope(dst, x)
	baseJobTail(dst, x)
}

func baseSystemJob(dst []byte, x *benchInput) {
	clear(dst[0:32])
	baseJobTail(dst, x)
}

func baseJobTail(dst []byte, x *benchInput) {
	dst[32], dst[33] = byte(x.state), x.prio
	binary.BigEndian.PutUint64(dst[34:42], uint64(x.v)^1<<63)
	copy(dst[42:58], x.a[:])
}

func baseBitmap(dst []byte, x *benchInput, kind BitmapKind) {
	baseScope(dst, x)
	binary.BigEndian.PutUint64(dst[32:40], x.h1)
	dst[40] = byte(kind)
}

func baseBitmapIDMap(dst []byte, x *benchInput) {
	baseBitmap(dst, x, BitmapIDMap)
	binary.BigEndian.PutUint32(dst[41:45], x.row)
}

func baseBitmapRevMap(dst []byte, x *benchInput) {
	baseBitmap(dst, x, BitmapRevMap)
	copy(dst[41:57], x.a[:])
}

func baseBitmapPosting(dst []byte, x *benchInput) {
	baseBitmap(dst, x, BitmapPosting)
	binary.BigEndian.PutUint64(dst[41:49], x.h2)
	binary.BigEndian.PutUint64(dst[49:57], x.h3)
}

func baseBitmapPropCounter(dst []byte, x *benchInput) {
	baseBitmap(dst, x, BitmapPropCounter)
	binary.BigEndian.PutUint64(dst[41:49], x.h2)
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
				baseVersion(sinkBuf, &in[i&7])
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
				baseVersion(sinkBuf, &in[i&7])
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
				baseAdjacency(sinkBuf, &in[i&7])
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
				baseAdjacency(sinkBuf, &in[i&7])
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
				baseTemporalIndex(sinkBuf, &in[i&7])
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
				baseTemporalIndex(sinkBuf, &in[i&7])
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
				baseVector(sinkBuf, &in[i&7])
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
				baseSchema(sinkBuf, &in[i&7])
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
				baseModel(sinkBuf, &in[i&7])
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
				baseSource(sinkBuf, &in[i&7])
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
				baseRedaction(sinkBuf, &in[i&7])
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
				baseSpan(sinkBuf, &in[i&7])
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
				baseTrace(sinkBuf, &in[i&7])
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
				baseJob(sinkBuf, &in[i&7])
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
				baseSystemJob(sinkBuf, &in[i&7])
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
				baseBitmap(sinkBuf, &in[i&7], BitmapAlloc)
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
				baseBitmapIDMap(sinkBuf, &in[i&7])
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
				baseBitmapRevMap(sinkBuf, &in[i&7])
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
				baseBitmapPosting(sinkBuf, &in[i&7])
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
				baseBitmapPropCounter(sinkBuf, &in[i&7])
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

// BenchmarkRange builds every range fixture that succeeds.
func BenchmarkRange(b *testing.B) {
	for _, fx := range rangeFixtures() {
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
// with blake3: its input escapes to the heap once.
func TestAllocs(t *testing.T) {
	for _, fx := range keyFixtures() {
		budget := 0.0
		if fx.call == "BlocklistKey(S, D)" {
			budget = 1
		}
		if n := testing.AllocsPerRun(100, func() { sinkKey = fx.build() }); n > budget {
			t.Errorf("%s: %v allocations, want at most %v", fx.call, n, budget)
		}
	}
	for _, d := range decoders {
		key := canonicalKey(d.family)
		if n := testing.AllocsPerRun(100, func() { sinkErr = d.decode(key) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", d.name, n)
		}
	}
	for _, fx := range rangeFixtures() {
		if _, err := fx.build(); err != nil {
			continue // error paths format a message
		}
		if n := testing.AllocsPerRun(100, func() { sinkRange, sinkErr = fx.build() }); n > 1 {
			t.Errorf("%s: %v allocations, want at most 1", fx.call, n)
		}
	}
}
