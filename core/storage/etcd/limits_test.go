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
				if _, err := e.txnOps(slices.All([]storage.Mutation{{Kind: storage.MutationPut, Key: k, Value: make([]byte, n)}})); err != nil {
					t.Errorf("limit %d: a value of MaxValueLen refused: %v", limit, err)
				}
				_, err := e.txnOps(slices.All([]storage.Mutation{{Kind: storage.MutationPut, Key: k, Value: make([]byte, n+1)}}))
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

// TestTxnOps covers what a batch turns into before it reaches the cluster:
// the last mutation of a key wins, limits count distinct keys, and a refused
// batch is refused whole with the right error.
func TestTxnOps(t *testing.T) {
	scope, err := storage.NewTenantScope([16]byte{1}, [16]byte{2})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i byte) storage.Key { return storage.TraceKey(scope, [16]byte{15: i}) }
	put := func(i byte, v string) storage.Mutation {
		return storage.Mutation{Kind: storage.MutationPut, Key: key(i), Value: []byte(v)}
	}
	del := func(i byte) storage.Mutation { return storage.Mutation{Kind: storage.MutationDelete, Key: key(i)} }
	e := &Engine{cfg: Config{MaxRequestBytes: 400, MaxTxnOps: 3}}
	tests := []struct {
		name    string
		muts    []storage.Mutation
		wantOps int
		wantErr error
	}{
		{"empty", nil, 0, nil},
		{"one key written five times", []storage.Mutation{put(1, "a"), del(1), put(1, "b"), put(1, "c"), del(1)}, 1, nil},
		{"three keys", []storage.Mutation{put(1, "a"), put(2, "b"), del(3)}, 3, nil},
		{"three keys, repeated", []storage.Mutation{put(1, "a"), put(2, "b"), del(3), put(1, "x"), del(2)}, 3, nil},
		{"four keys", []storage.Mutation{put(1, "a"), put(2, "b"), del(3), del(4)}, 0, ErrBatchTooLarge},
		{"each fits, together too large", []storage.Mutation{put(1, string(make([]byte, 150))), put(2, string(make([]byte, 150)))}, 0, ErrBatchTooLarge},
		{"one value too large", []storage.Mutation{put(1, "a"), put(2, string(make([]byte, 400)))}, 0, storage.ErrValueTooLarge},
		{"a large value overwritten by a small one", []storage.Mutation{put(1, string(make([]byte, 400))), put(1, "a")}, 1, nil},
		{"zero key", []storage.Mutation{put(1, "a"), {Kind: storage.MutationPut}}, 0, storage.ErrInvalidKey},
		{"unknown kind", []storage.Mutation{{Kind: 9, Key: key(1)}}, 0, storage.ErrUnknownKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := e.txnOps(slices.All(tt.muts))
			if !errors.Is(err, tt.wantErr) || len(ops) != tt.wantOps {
				t.Errorf("txnOps = %d ops, %v; want %d ops, %v", len(ops), err, tt.wantOps, tt.wantErr)
			}
		})
	}
}
