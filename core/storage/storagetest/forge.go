package storagetest

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// The suite hands engines keys, ranges and batches that no constructor
// builds, as a caller with unsafe, a data race or a bug in the key
// authority could: engines must not trust what the types promise, and
// check everything again when they are handed it. The fields are found by
// name, so that a change of the types' layout fails here loudly rather
// than testing nothing.

// field returns the unexported field name of the struct *p, settable.
func field(p any, name string) reflect.Value {
	f := reflect.ValueOf(p).Elem().FieldByName(name)
	if !f.IsValid() {
		panic(fmt.Sprintf("storagetest: %T has no field %q: update the forgeries to the type's layout", p, name))
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// internalMutations returns the mutation slice a Batch keeps to itself.
func internalMutations(b *storage.Batch) *[]storage.Mutation {
	return field(b, "mutations").Addr().Interface().(*[]storage.Mutation)
}

// keyLength reads a Key's length field, marks included.
func keyLength(k *storage.Key) uint8 { return uint8(field(k, "n").Uint()) }

func setKeyLength(k *storage.Key, n uint8) { field(k, "n").SetUint(uint64(n)) }

func setKeyFamily(k *storage.Key, cf storage.ColumnFamily) { field(k, "family").SetUint(uint64(cf)) }

// forgery is a Key that an engine must refuse with ErrInvalidKey.
type forgery struct {
	name string
	key  storage.Key
}

// forgedKeys returns keys that break each rule of storage.Key.Valid: no
// family, a length that is not the layout's, a scope that is neither a
// tenant's nor the system's, the system mark where it does not belong, and
// discriminator bytes outside their enumeration.
func forgedKeys() []forgery {
	node := nodeKey(1)
	sysJob := storage.SystemScope{}.JobKey(storage.JobQueued, 0, 0, uuid.UUID{15: 1})
	tenantJob := storage.JobKey(tenantA.tenant, storage.JobQueued, 0, 0, uuid.UUID{15: 1})
	// The system mark is what a system key's length field holds beyond its
	// length.
	systemMark := keyLength(&sysJob) - storage.JobKeyLen
	edit := func(k storage.Key, f func(k *storage.Key)) storage.Key {
		f(&k)
		return k
	}
	view := func(k storage.Key, f func(b []byte)) storage.Key {
		f(k.View())
		return k
	}
	return []forgery{
		{"the zero Key", storage.Key{}},
		{"a key of the zero TenantScope", storage.NodeVersionKey(storage.TenantScope{}, uuid.UUID{15: 1}, 0, 0)},
		{"tenant id cleared", view(node, func(b []byte) { clear(b[:16]) })},
		{"organization id cleared", view(node, func(b []byte) { clear(b[16:storage.ScopeLen]) })},
		{"scope cleared to the system prefix, unmarked", view(node, func(b []byte) { clear(b[:storage.ScopeLen]) })},
		{"length one short", edit(node, func(k *storage.Key) { setKeyLength(k, storage.VersionKeyLen-1) })},
		{"length one long", edit(node, func(k *storage.Key) { setKeyLength(k, storage.VersionKeyLen+1) })},
		{"length 0", edit(node, func(k *storage.Key) { setKeyLength(k, 0) })},
		{"no family", edit(node, func(k *storage.Key) { setKeyFamily(k, 0) })},
		{"unknown family", edit(node, func(k *storage.Key) { setKeyFamily(k, storage.LastFamily+1) })},
		{"another family's layout", edit(node, func(k *storage.Key) { setKeyFamily(k, storage.AdjacencyOut) })},
		{"system mark on a tenant key", edit(tenantJob, func(k *storage.Key) { setKeyLength(k, storage.JobKeyLen|systemMark) })},
		{"system key in a family without system rows", edit(view(node, func(b []byte) { clear(b[:storage.ScopeLen]) }),
			func(k *storage.Key) { setKeyLength(k, storage.VersionKeyLen|systemMark) })},
		{"system job key moved into another scope", view(sysJob, func(b []byte) { b[0] = 1 })},
		{"unknown job state", view(tenantJob, func(b []byte) { b[storage.ScopeLen] = 0x7f })},
		{"unknown index kind", view(storage.ValidTimeIndexKey(tenantA.tenant, 0, 0, uuid.UUID{15: 1}, storage.IndexEdge),
			func(b []byte) { b[storage.TemporalIndexKeyLen-1] = 0x09 })},
		{"unknown bitmap kind", view(storage.BitmapAllocKey(tenantA.tenant, 7), func(b []byte) { b[storage.ScopeLen+8] = 0x09 })},
		{"bitmap kind of another length", view(storage.BitmapAllocKey(tenantA.tenant, 7), func(b []byte) { b[storage.ScopeLen+8] = byte(storage.BitmapPosting) })},
		{"index kind out of its enumeration by the constructor", storage.TxTimeIndexKey(tenantA.tenant, 0, 0, uuid.UUID{15: 1}, storage.IndexKind(7))},
	}
}

// rangeForgery is a ScanRange that an engine must refuse with
// ErrInvalidRange.
type rangeForgery struct {
	name string
	r    storage.ScanRange
}

// forgedRanges returns ranges whose bounds no longer keep them inside one
// scope of their kind, changed through Bounds (whose slices alias the
// range) or through unsafe.
func forgedRanges() []rangeForgery {
	bounds := func(r storage.ScanRange, f func(lower, upper []byte)) storage.ScanRange {
		f(r.Bounds())
		return r
	}
	set := func(r storage.ScanRange, name string, v any) storage.ScanRange {
		field(&r, name).Set(reflect.ValueOf(v))
		return r
	}
	nodesA := func() storage.ScanRange { return storage.TenantAll(tenantA.tenant, storage.NodeVersions) }
	return []rangeForgery{
		{"lower moved to the system prefix", bounds(nodesA(), func(lower, _ []byte) { clear(lower) })},
		{"tenant id of lower cleared", bounds(nodesA(), func(lower, _ []byte) { clear(lower[:16]) })},
		{"organization id of lower cleared", bounds(nodesA(), func(lower, _ []byte) { clear(lower[16:]) })},
		{"upper raised into the next scope", bounds(storage.TenantAll(tenantB.tenant, storage.NodeVersions),
			func(_, upper []byte) { upper[0] = 0xff })},
		{"upper removed", set(nodesA(), "upper", []byte(nil))},
		{"upper beyond the scope's bound", set(nodesA(), "upper", []byte{0xff})},
		{"marked as crossing scopes", set(nodesA(), "crossesScopes", true)},
		{"marked system", set(nodesA(), "system", true)},
		{"system range unmarked", set(storage.SystemScope{}.JobsInState(storage.JobQueued), "system", false)},
		{"no family", set(nodesA(), "family", storage.ColumnFamily(0))},
		{"unknown family", set(nodesA(), "family", storage.LastFamily+1)},
		{"lower shorter than a scope", set(nodesA(), "lower", make([]byte, storage.ScopeLen-1))},
	}
}
