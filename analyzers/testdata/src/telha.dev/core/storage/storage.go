// Package storage is a stub of the key authority, shared by the testdata of
// the Telha analyzers. Its marks follow the contract of core/storage.
package storage

import (
	"errors"
	"iter"
)

// ColumnFamily is a column family.
type ColumnFamily uint8

// The column families used by the tests.
const (
	NodeVersions ColumnFamily = iota
	Edges
	Jobs
)

// Timestamp is an order-preserving time.
type Timestamp int64

// JobState is the state of a job.
type JobState uint8

// ErrNilScope is returned for a nil scope component.
var ErrNilScope = errors.New("storage: nil scope component")

// TenantScope is the prefix of one tenant's keys.
//
//telha:opaque use NewTenantScope
type TenantScope struct{ prefix [32]byte }

// NewTenantScope returns the scope of a tenant and organization.
func NewTenantScope(tenant, org [16]byte) (TenantScope, error) {
	if tenant == [16]byte{} || org == [16]byte{} {
		return TenantScope{}, ErrNilScope
	}
	var s TenantScope
	copy(s.prefix[:16], tenant[:])
	copy(s.prefix[16:], org[:])
	return s, nil
}

// SystemScope is the only producer of the all-zero prefix.
//
//telha:restricted system use a TenantScope from NewTenantScope, or the system facade in telha.dev/core/storage/system
type SystemScope struct{}

// JobKey returns the key of a job in the system namespace.
//
//telha:restricted system use storage.JobKey with a TenantScope
func (SystemScope) JobKey(state JobState, priority uint8, created Timestamp, id [16]byte) Key {
	return Key{cf: Jobs, b: make([]byte, 32)}
}

// JobKey returns the key of a tenant's job.
func JobKey(scope TenantScope, state JobState, priority uint8, created Timestamp, id [16]byte) Key {
	return Key{cf: Jobs, b: scope.prefix[:]}
}

// Key is a key of one column family.
//
//telha:opaque use a key constructor such as storage.NodeVersionKey
type Key struct {
	cf ColumnFamily
	b  []byte
}

// NodeVersionKey returns the key of a node version.
func NodeVersionKey(scope TenantScope, node [16]byte, valid Timestamp) Key {
	return Key{cf: NodeVersions, b: append(scope.prefix[:], node[:]...)}
}

// Family returns the column family of k.
func (k Key) Family() ColumnFamily { return k.cf }

// Bytes returns a copy of the encoded key.
func (k Key) Bytes() []byte { return append([]byte(nil), k.b...) }

// View returns the encoded key without copying it.
//
//telha:restricted rawbytes use Key.Bytes, which returns a copy
func (k *Key) View() []byte { return k.b }

// ScanRange is a range of keys of one column family.
//
//telha:opaque use a range constructor such as storage.NodeHistory
type ScanRange struct {
	cf           ColumnFamily
	lower, upper []byte
}

// NodeHistory returns the range of all versions of a node.
func NodeHistory(scope TenantScope, node [16]byte) ScanRange {
	return ScanRange{cf: NodeVersions, lower: append(scope.prefix[:], node[:]...)}
}

// Family returns the column family of r.
func (r ScanRange) Family() ColumnFamily { return r.cf }

// FromStoredBounds rebuilds a range from bounds read back from storage.
//
//telha:restricted rawbytes use a range constructor such as storage.NodeHistory
func FromStoredBounds(cf ColumnFamily, lower, upper []byte) (ScanRange, error) {
	return ScanRange{cf: cf, lower: lower, upper: upper}, nil
}

// Bounds returns the encoded bounds of r.
//
//telha:restricted rawbytes use the Engine Scan API, which applies the bounds
func (r *ScanRange) Bounds() (lower, upper []byte) { return r.lower, r.upper }

// Engine is a storage engine.
type Engine interface {
	// Get returns the value stored under k.
	Get(k Key) ([]byte, error)
	// Scan yields the keys and values of r in order.
	Scan(r ScanRange) iter.Seq2[Key, []byte]
	// ScanFamily yields every key of a column family, of every tenant.
	//
	//telha:restricted fullscan use Scan with a ScanRange from a range constructor
	ScanFamily(cf ColumnFamily) iter.Seq2[Key, []byte]
}

var (
	// SystemPrefix is the all-zero prefix.
	//
	//telha:restricted system use the prefix of a TenantScope
	SystemPrefix = [32]byte{}

	// DefaultFamily is not restricted.
	DefaultFamily = NodeVersions
)

// The system tenant and organization.
//
//telha:restricted system use the system facade in telha.dev/core/storage/system
const (
	SystemTenant = "00000000-0000-0000-0000-000000000000"
	SystemOrg    = "00000000-0000-0000-0000-000000000000"
)
