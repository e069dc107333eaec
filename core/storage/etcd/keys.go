package etcd

import (
	"bytes"
	"fmt"

	"telha.dev/core/storage"
)

// keyspace turns Telha keys and ranges into etcd keys and back. An etcd key
// is the namespace, one family byte, then the Telha key:
//
//	namespace ‖ family ‖ key
//
// Family bytes are 1 to 13 (storage.ColumnFamily), so every family is one
// contiguous etcd range, [namespace‖family, namespace‖family+1), and no
// range of one family can reach another. Byte 0 after the namespace starts
// the engine's own metadata (metaPrefix), which no ScanRange can address.
//
// A namespace is printable ASCII (0x21 to 0x7E). Since the byte after a
// namespace is a family byte or 0, below 0x21, no key of one namespace
// starts with another namespace: two engines with different namespaces can
// never see each other's rows, even when one namespace is a prefix of the
// other.
type keyspace struct {
	ns []byte
}

// metaPrefix follows the namespace in the engine's metadata keys. Byte 0
// is not a column family.
const metaPrefix = "\x00"

// restoreMarker is the metadata key present while Restore loads a
// namespace: Open refuses a namespace that holds it.
const restoreMarker = "restore-in-progress"

// validNamespace reports why ns cannot be a namespace, or nil.
func validNamespace(ns string) error {
	for i := range len(ns) {
		if c := ns[i]; c < 0x21 || c > 0x7E {
			return fmt.Errorf("namespace %q: byte %d is %#x; a namespace is printable ASCII without spaces", ns, i, c)
		}
	}
	return nil
}

// key returns the etcd key of k, which must be valid.
func (ks keyspace) key(k *storage.Key) string {
	b := make([]byte, 0, len(ks.ns)+1+k.Len())
	b = append(append(b, ks.ns...), byte(k.Family()))
	return string(append(b, k.View()...))
}

// meta returns the etcd key of the metadata row name.
func (ks keyspace) meta(name string) string {
	return string(ks.ns) + metaPrefix + name
}

// span returns the etcd interval [start, end) of r, which must be valid. A
// range without an upper bound ends at the next family byte.
func (ks keyspace) span(r *storage.ScanRange) (start, end string) {
	lower, upper := r.Bounds()
	prefix := append(bytes.Clone(ks.ns), byte(r.Family()))
	start = string(prefix) + string(lower)
	if upper == nil {
		prefix[len(prefix)-1]++
		return start, string(prefix)
	}
	return start, string(prefix) + string(upper)
}

// all returns the etcd interval of every key of the namespace: its
// metadata and its families, [namespace‖0, namespace‖14). It holds no key
// of another namespace, even of one that starts with this one.
func (ks keyspace) all() (start, end string) {
	return string(ks.ns) + metaPrefix, string(ks.ns) + string(byte(storage.LastFamily)+1)
}

// telhaKey strips the namespace and the family byte from an etcd key of
// family cf, checking that it lies in [start, end): a row outside the range
// asked for is refused rather than handed to a caller of another tenant.
// The result aliases etcdKey, which each response allocates afresh.
func (ks keyspace) telhaKey(cf storage.ColumnFamily, etcdKey []byte, start, end string) ([]byte, error) {
	if string(etcdKey) < start || string(etcdKey) >= end {
		return nil, fmt.Errorf("%w: the cluster returned key %x outside the range [%x, %x)", ErrProtocol, etcdKey, start, end)
	}
	n := len(ks.ns) + 1
	if len(etcdKey) < n+storage.ScopeLen || len(etcdKey) > n+storage.MaxKeyLen || etcdKey[n-1] != byte(cf) {
		return nil, fmt.Errorf("%w: the cluster returned key %x, not a %s key", ErrProtocol, etcdKey, cf)
	}
	return etcdKey[n:], nil
}
