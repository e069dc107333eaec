package etcd

import (
	"fmt"
	"iter"
	"math/bits"

	clientv3 "go.etcd.io/etcd/client/v3"

	"telha.dev/core/storage"
)

// A batch is one etcd transaction, and etcd refuses a transaction with
// more operations than --max-txn-ops, or whose request, as the leader
// encodes it for its log, is larger than --max-request-bytes. The engine
// computes that encoded size exactly, so that it refuses what the cluster
// would refuse, before sending it, with a typed error; and it never splits
// a batch to make it fit, which would make it non-atomic.
//
// The leader's log entry is an InternalRaftRequest: a header (field 100)
// holding a request id of up to 10 varint bytes (the engine does not use
// authentication, which would add a user name), and the transaction (field
// 6). The transaction repeats Compare (field 1), one per condition of the
// batch, and RequestOp (field 2), each holding a PutRequest (field 2: key
// 1, value 2) or a DeleteRangeRequest (field 3: key 1, range end 2). An
// empty bytes field is not encoded; a field of a oneof always is.
//
// etcd counts the comparisons of a transaction apart from its operations:
// it refuses one whose comparisons, or whose operations, number more than
// --max-txn-ops.
const raftHeaderLen = 2 + 1 + 1 + 10 // header tag, length, ID tag, ID

// varintLen is the length of x as a protobuf varint.
func varintLen(x int) int { return 1 + (bits.Len64(uint64(x))-1)/7 }

// fieldLen is the encoded length of a length-delimited field of n bytes
// with a one-byte tag, as proto3 writes it: nothing when n is 0 and the
// field is a bytes field (omitEmpty), else tag, length and the bytes.
func fieldLen(n int, omitEmpty bool) int {
	if n == 0 && omitEmpty {
		return 0
	}
	return 1 + varintLen(n) + n
}

// opLen is the encoded length of one RequestOp in a transaction's success
// list: a put of a value of valueLen bytes, or, when remove is set, a
// single-key delete.
func opLen(keyLen, valueLen int, remove bool) int {
	inner := fieldLen(keyLen, true)
	if !remove {
		inner += fieldLen(valueLen, true)
	}
	return fieldLen(fieldLen(inner, false), false)
}

// compareLen is the encoded length of one Compare in a transaction: with
// absent, "the key has version 0" (target VERSION, 0, is not encoded; the
// version, a oneof field, is: tag and a zero byte); otherwise "the key's
// value equals a value of valueLen bytes" (target VALUE, 3: tag and
// byte; the value, a oneof field, is encoded even when empty). The result,
// EQUAL, is 0 and not encoded.
func compareLen(keyLen, valueLen int, absent bool) int {
	inner := fieldLen(keyLen, true)
	if absent {
		inner += 2
	} else {
		inner += 2 + fieldLen(valueLen, false)
	}
	return fieldLen(inner, false)
}

// requestLen is the encoded length of the log entry of a transaction whose
// operations have the given encoded lengths in total.
func requestLen(opsLen int) int { return raftHeaderLen + fieldLen(opsLen, false) }

// rangeLen is the encoded length of one RequestOp in a transaction's
// success list holding a count-only RangeRequest of one key (key 1;
// count_only 9, a varint: tag and one byte).
func rangeLen(keyLen int) int { return fieldLen(fieldLen(fieldLen(keyLen, true)+2, false), false) }

// txn is one transaction: its comparisons and its operations.
type txn struct {
	cmps     []clientv3.Cmp
	ops      []clientv3.Op
	condKeys []storage.Key // the keys the comparisons name
}

// txn turns mutations and conditions into one transaction, checking each
// mutation and condition again (Mutation.Check, Condition.Check: a batch
// may have been changed after it was built) and the cluster's limits.
// Several mutations of one key collapse into the last, as in every engine:
// etcd refuses a transaction that touches a key twice. Each condition is
// one comparison, whatever its key.
func (e *Engine) txn(all iter.Seq2[int, storage.Mutation], conds iter.Seq2[int, storage.Condition]) (txn, error) {
	var t txn
	total := 0
	if conds != nil {
		for i, c := range conds {
			if err := c.Check(); err != nil {
				return txn{}, fmt.Errorf("condition %d: %w", i, err)
			}
			k := e.keys.key(&c.Key)
			t.condKeys = append(t.condKeys, c.Key)
			if c.Kind == storage.ConditionAbsent {
				t.cmps = append(t.cmps, clientv3.Compare(clientv3.Version(k), "=", 0))
			} else {
				t.cmps = append(t.cmps, clientv3.Compare(clientv3.Value(k), "=", string(c.Value)))
			}
			total += compareLen(len(k), len(c.Value), c.Kind == storage.ConditionAbsent)
		}
	}
	var muts []storage.Mutation
	var keys []string
	var ranges []clientv3.Op
	last := make(map[string]int)
	for i, m := range all {
		if err := m.Check(); err != nil {
			return txn{}, fmt.Errorf("mutation %d: %w", i, err)
		}
		if m.Kind == storage.MutationDeleteRange {
			// A range deletion is a DeleteRangeRequest: the key, then
			// the range end as field 2, encoded as a put's value is.
			if start, end := e.keys.span(&m.Range); start < end {
				ranges = append(ranges, clientv3.OpDelete(start, clientv3.WithRange(end)))
				total += opLen(len(start), len(end), false)
			}
			continue
		}
		k := e.keys.key(&m.Key)
		last[k] = len(muts)
		muts, keys = append(muts, m), append(keys, k)
	}
	// A batch puts no key inside a range it deletes (storage.Batch), which
	// etcd would refuse, so the range deletions may go first.
	t.ops = append(make([]clientv3.Op, 0, len(ranges)+len(last)), ranges...)
	for i := range muts {
		if last[keys[i]] != i {
			continue
		}
		m := &muts[i]
		n := opLen(len(keys[i]), len(m.Value), m.Kind == storage.MutationDelete)
		if requestLen(n) > e.cfg.MaxRequestBytes {
			return txn{}, fmt.Errorf("mutation %d: %d-byte value of %s: %w (at most %d bytes)",
				i, len(m.Value), m.Key, storage.ErrValueTooLarge, e.MaxValueLen(m.Key))
		}
		total += n
		if m.Kind == storage.MutationDelete {
			t.ops = append(t.ops, clientv3.OpDelete(keys[i]))
		} else {
			t.ops = append(t.ops, clientv3.OpPut(keys[i], string(m.Value)))
		}
	}
	if len(t.ops) == 0 && len(t.cmps) > 0 {
		// A transaction without operations is one etcd takes for
		// serializable: any member answers it from what it has applied,
		// which may be behind what the cluster acknowledged, so that a
		// condition would be checked against a stale state. A linearizable
		// read of a key it names (its count alone) makes the member catch
		// up with the leader first, as every read of the engine does.
		k := e.keys.key(&t.condKeys[0])
		t.ops = append(t.ops, clientv3.OpGet(k, clientv3.WithCountOnly()))
		total += rangeLen(len(k))
	}
	switch {
	case len(t.ops) > e.cfg.MaxTxnOps:
		return txn{}, fmt.Errorf("%d distinct keys: %w (at most %d operations)", len(t.ops), ErrBatchTooLarge, e.cfg.MaxTxnOps)
	case len(t.cmps) > e.cfg.MaxTxnOps:
		return txn{}, fmt.Errorf("%d conditions: %w (at most %d comparisons)", len(t.cmps), ErrBatchTooLarge, e.cfg.MaxTxnOps)
	case requestLen(total) > e.cfg.MaxRequestBytes:
		return txn{}, fmt.Errorf("request of %d bytes: %w (at most %d bytes)", requestLen(total), ErrBatchTooLarge, e.cfg.MaxRequestBytes)
	}
	return t, nil
}

// MaxValueLen returns the length of the largest value that a Put of k, or
// a batch holding only that put, can store under the engine's
// MaxRequestBytes. It depends a little on the key's length and the
// namespace. It returns 0 for an invalid key.
func (e *Engine) MaxValueLen(k storage.Key) int {
	if !k.Valid() {
		return 0
	}
	keyLen := len(e.keys.ns) + 1 + k.Len()
	n := e.cfg.MaxRequestBytes - requestLen(opLen(keyLen, 0, false))
	for n > 0 && requestLen(opLen(keyLen, n, false)) > e.cfg.MaxRequestBytes {
		n--
	}
	return max(n, 0)
}
