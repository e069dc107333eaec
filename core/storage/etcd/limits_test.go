package etcd

import (
	"errors"
	"math"
	"slices"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// lengthEdges are lengths at which a varint length prefix grows a byte.
var lengthEdges = []int{0, 1, 127, 128, 16383, 16384, 2097151, 2097152}

// TestRequestLenIsExact checks the engine's arithmetic against the
// encoding the leader measures: the InternalRaftRequest of a transaction,
// with the largest request id. A formula that undercounts lets through a
// request the cluster refuses; one that overcounts refuses what the
// cluster would take.
func TestRequestLenIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "ops")
		txn := &pb.TxnRequest{}
		total := 0
		for range rapid.IntRange(0, 4).Draw(t, "conditions") {
			key := make([]byte, rapid.IntRange(1, 200).Draw(t, "condition key length"))
			cmp := &pb.Compare{Key: key, Target: pb.Compare_VERSION, TargetUnion: &pb.Compare_Version{Version: 0}}
			absent := rapid.Bool().Draw(t, "absent")
			valueLen := 0
			if !absent {
				valueLen = rapid.OneOf(rapid.SampledFrom(lengthEdges), rapid.IntRange(0, 300)).Draw(t, "condition value length")
				cmp.Target, cmp.TargetUnion = pb.Compare_VALUE, &pb.Compare_Value{Value: make([]byte, valueLen)}
			}
			txn.Compare = append(txn.Compare, cmp)
			total += compareLen(len(key), valueLen, absent)
		}
		for range n {
			keyLen := rapid.IntRange(1, 200).Draw(t, "key length")
			valueLen := rapid.OneOf(rapid.SampledFrom(lengthEdges), rapid.IntRange(0, 300)).Draw(t, "value length")
			remove := rapid.Bool().Draw(t, "delete")
			key := make([]byte, keyLen)
			op := &pb.RequestOp{Request: &pb.RequestOp_RequestDeleteRange{RequestDeleteRange: &pb.DeleteRangeRequest{Key: key}}}
			if !remove {
				op.Request = &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: key, Value: make([]byte, valueLen)}}
			}
			txn.Success = append(txn.Success, op)
			total += opLen(keyLen, valueLen, remove)
		}
		entry := &pb.InternalRaftRequest{Header: &pb.RequestHeader{ID: math.MaxUint64}, Txn: txn}
		if got, want := requestLen(total), proto.Size(entry); got != want {
			t.Fatalf("requestLen = %d, the encoding is %d bytes", got, want)
		}
	})
}

func TestVarintLen(t *testing.T) {
	for _, x := range []int{0, 1, 127, 128, 16383, 16384, math.MaxInt32, math.MaxInt} {
		if got, want := varintLen(x), protowire.SizeVarint(uint64(x)); got != want {
			t.Errorf("varintLen(%d) = %d, want %d", x, got, want)
		}
	}
}

// TestMaxValueLen checks that MaxValueLen is the exact boundary: its value
// fits the request limit, one more byte does not.
func TestMaxValueLen(t *testing.T) {
	scope, err := storage.NewTenantScope([16]byte{1}, [16]byte{2})
	if err != nil {
		t.Fatal(err)
	}
	keys := []storage.Key{
		storage.TraceKey(scope, [16]byte{3}),
		storage.AdjacencyOutKey(scope, [16]byte{3}, 1, 2, 3, [16]byte{4}),
	}
	for _, limit := range []int{200, 16384 + 150, DefaultMaxRequestBytes, 10 << 20} {
		for _, ns := range []string{"", "a-namespace/"} {
			e := &Engine{cfg: Config{MaxRequestBytes: limit, MaxTxnOps: 1}, keys: keyspace{ns: []byte(ns)}}
			for _, k := range keys {
				n := e.MaxValueLen(k)
				keyLen := len(e.keys.key(&k))
				if requestLen(opLen(keyLen, n, false)) > limit || requestLen(opLen(keyLen, n+1, false)) <= limit {
					t.Errorf("limit %d, namespace %q, %s: MaxValueLen %d is not the boundary", limit, ns, k.Family(), n)
				}
				if _, err := e.txn(slices.All([]storage.Mutation{{Kind: storage.MutationPut, Key: k, Value: make([]byte, n)}}), nil); err != nil {
					t.Errorf("limit %d: a value of MaxValueLen refused: %v", limit, err)
				}
				_, err := e.txn(slices.All([]storage.Mutation{{Kind: storage.MutationPut, Key: k, Value: make([]byte, n+1)}}), nil)
				if !errors.Is(err, storage.ErrValueTooLarge) {
					t.Errorf("limit %d: a value of MaxValueLen+1: %v, want ErrValueTooLarge", limit, err)
				}
			}
		}
	}
	if n := (&Engine{cfg: Config{MaxRequestBytes: 1 << 20}}).MaxValueLen(storage.Key{}); n != 0 {
		t.Errorf("MaxValueLen of the zero Key = %d, want 0", n)
	}
}

// TestTxn covers what a batch turns into before it reaches the cluster:
// the last mutation of a key wins, limits count distinct keys and, apart,
// conditions, and a refused batch is refused whole with the right error.
func TestTxn(t *testing.T) {
	scope, err := storage.NewTenantScope([16]byte{1}, [16]byte{2})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i byte) storage.Key { return storage.TraceKey(scope, [16]byte{15: i}) }
	put := func(i byte, v string) storage.Mutation {
		return storage.Mutation{Kind: storage.MutationPut, Key: key(i), Value: []byte(v)}
	}
	del := func(i byte) storage.Mutation { return storage.Mutation{Kind: storage.MutationDelete, Key: key(i)} }
	absent := func(i byte) storage.Condition { return storage.Condition{Kind: storage.ConditionAbsent, Key: key(i)} }
	holds := func(i byte, v string) storage.Condition {
		return storage.Condition{Kind: storage.ConditionValue, Key: key(i), Value: []byte(v)}
	}
	e := &Engine{cfg: Config{MaxRequestBytes: 400, MaxTxnOps: 3}}
	tests := []struct {
		name     string
		muts     []storage.Mutation
		conds    []storage.Condition
		wantOps  int
		wantCmps int
		wantErr  error
	}{
		{"empty", nil, nil, 0, 0, nil},
		{"one key written five times", []storage.Mutation{put(1, "a"), del(1), put(1, "b"), put(1, "c"), del(1)}, nil, 1, 0, nil},
		{"three keys", []storage.Mutation{put(1, "a"), put(2, "b"), del(3)}, nil, 3, 0, nil},
		{"three keys, repeated", []storage.Mutation{put(1, "a"), put(2, "b"), del(3), put(1, "x"), del(2)}, nil, 3, 0, nil},
		{"four keys", []storage.Mutation{put(1, "a"), put(2, "b"), del(3), del(4)}, nil, 0, 0, ErrBatchTooLarge},
		{"each fits, together too large", []storage.Mutation{put(1, string(make([]byte, 150))), put(2, string(make([]byte, 150)))}, nil, 0, 0, ErrBatchTooLarge},
		{"one value too large", []storage.Mutation{put(1, "a"), put(2, string(make([]byte, 400)))}, nil, 0, 0, storage.ErrValueTooLarge},
		{"a large value overwritten by a small one", []storage.Mutation{put(1, string(make([]byte, 400))), put(1, "a")}, nil, 1, 0, nil},
		{"zero key", []storage.Mutation{put(1, "a"), {Kind: storage.MutationPut}}, nil, 0, 0, storage.ErrInvalidKey},
		{"unknown kind", []storage.Mutation{{Kind: 9, Key: key(1)}}, nil, 0, 0, storage.ErrUnknownKind},
		{"conditions alone carry one read", nil, []storage.Condition{absent(1), holds(2, "b")}, 1, 2, nil},
		{"conditions on the keys written", []storage.Mutation{put(1, "a"), put(2, "b")},
			[]storage.Condition{absent(1), holds(2, "x"), holds(2, "y")}, 2, 3, nil},
		{"three operations and three conditions", []storage.Mutation{put(1, "a"), put(2, "b"), del(3)},
			[]storage.Condition{absent(4), absent(5), absent(6)}, 3, 3, nil},
		{"four conditions", []storage.Mutation{put(1, "a")},
			[]storage.Condition{absent(1), absent(2), absent(3), absent(4)}, 0, 0, ErrBatchTooLarge},
		{"a condition's value too large", []storage.Mutation{put(1, "a")},
			[]storage.Condition{holds(1, string(make([]byte, 400)))}, 0, 0, ErrBatchTooLarge},
		{"condition on the zero key", nil, []storage.Condition{{Kind: storage.ConditionAbsent}}, 0, 0, storage.ErrInvalidKey},
		{"condition of an unknown kind", nil, []storage.Condition{{Kind: 7, Key: key(1)}}, 0, 0, storage.ErrUnknownKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txn, err := e.txn(slices.All(tt.muts), slices.All(tt.conds))
			if !errors.Is(err, tt.wantErr) || len(txn.ops) != tt.wantOps || len(txn.cmps) != tt.wantCmps {
				t.Errorf("txn = %d ops, %d comparisons, %v; want %d, %d, %v", len(txn.ops), len(txn.cmps), err, tt.wantOps, tt.wantCmps, tt.wantErr)
			}
		})
	}
}
