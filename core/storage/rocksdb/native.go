package rocksdb

// #cgo LDFLAGS: -lrocksdb
// #include <stdlib.h>
// #include "cursor.h"
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// The scan cursor (cursor.c) calls RocksDB's C API directly, on the store,
// family and snapshot handles that grocksdb opened. grocksdb v1.7.14 keeps
// each of them as the only field, or the first, of its wrapper, with no
// accessor; the engine reads that field. The handles stay grocksdb's: the
// engine never frees one, and uses one only while it holds mu for reading,
// so never after Close, which frees them under mu held for writing. What
// the cursor creates (read options, iterator) it frees itself.

// slotLen is C's TELHA_SLOT: the bytes of the slot a filled row takes at
// the back of its buffer.
const slotLen = C.TELHA_SLOT

// The C types that the rest of the package names.
type (
	cCursor   = C.telha_cursor
	cFamily   = C.rocksdb_column_family_handle_t
	cSnapshot = C.rocksdb_snapshot_t
)

// handles are the C handles of an open store, borrowed from grocksdb.
type handles struct {
	db       *C.rocksdb_t
	families []*C.rocksdb_column_family_handle_t // indexed by storage.ColumnFamily
}

// nativeHandles reads the C handles of db and of families, a slice indexed
// by storage.ColumnFamily with nil holes.
func nativeHandles(db *grocksdb.DB, families []*grocksdb.ColumnFamilyHandle) handles {
	h := handles{db: firstField[*C.rocksdb_t](db), families: make([]*C.rocksdb_column_family_handle_t, len(families))}
	for cf, f := range families {
		if f != nil {
			h.families[cf] = firstField[*C.rocksdb_column_family_handle_t](f)
		}
	}
	return h
}

// nativeSnapshot reads the C handle of s.
func nativeSnapshot(s *grocksdb.Snapshot) *C.rocksdb_snapshot_t {
	return firstField[*C.rocksdb_snapshot_t](s)
}

// firstField returns the C pointer held in the first field of *wrapper,
// which errBinding has checked is a P.
func firstField[P, W any](wrapper *W) P {
	return *(*P)(unsafe.Pointer(wrapper))
}

// errBinding is nil when each grocksdb wrapper whose handle the engine
// reads holds it, as a pointer to the same C struct, in its first field.
// Open refuses to run with a binding laid out otherwise.
var errBinding = errors.Join(
	checkWrapper[grocksdb.DB, *C.rocksdb_t](),
	checkWrapper[grocksdb.ColumnFamilyHandle, *C.rocksdb_column_family_handle_t](),
	checkWrapper[grocksdb.Snapshot, *C.rocksdb_snapshot_t](),
)

// checkWrapper reports whether the first field of W, at offset 0, is a
// pointer to a C type of the same name as P's.
func checkWrapper[W, P any]() error {
	w, want := reflect.TypeFor[W](), reflect.TypeFor[P]().Elem()
	if w.Kind() == reflect.Struct && w.NumField() > 0 {
		f := w.Field(0)
		if f.Offset == 0 && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Name() == want.Name() {
			return nil
		}
	}
	return fmt.Errorf("grocksdb.%s does not hold a *%s in its first field: the scan cursor needs the binding of grocksdb v1.7.14", w.Name(), want.Name())
}

// nativeOpen is what openNative found at the range's lower bound.
type nativeOpen struct {
	cursor *C.telha_cursor // nil when the range is empty or the seek failed
	first  int             // room the first row takes in a buffer
}

// openNative creates the cursor of one range of family in store h, on
// snapshot when not nil, and seeks it to lower. lower and upper are read
// during the call only: the cursor keeps its own copy of upper.
func openNative(h *handles, family *C.rocksdb_column_family_handle_t, snapshot *C.rocksdb_snapshot_t,
	oneScope bool, lower, upper []byte) (nativeOpen, error) {
	r := C.telha_cursor_open(h.db, family, snapshot, cBool(oneScope),
		bytesPtr(lower), C.size_t(len(lower)), bytesPtr(upper), C.size_t(len(upper)), cBool(upper != nil))
	switch {
	case r.oom != 0:
		return nativeOpen{}, errors.New("cannot allocate a scan cursor")
	case r.err != nil:
		return nativeOpen{}, cError(r.err)
	}
	return nativeOpen{cursor: r.cursor, first: int(r.first)}, nil
}

// nativeFill is what one fillNative call did.
type nativeFill struct {
	rows int  // rows copied into the buffer
	need int  // room the next row takes, when it did not fit; 0 otherwise
	done bool // the range ended (or failed) and the cursor is freed
}

// fillNative copies rows of c into buf (see telha_cursor_fill), which must
// be shorter than 4 GiB. When the range ends or fails, the cursor is freed
// before fillNative returns, and the error, if any, is RocksDB's.
func fillNative(c *C.telha_cursor, buf []byte) (nativeFill, error) {
	r := C.telha_cursor_fill(c, (*C.char)(unsafe.Pointer(unsafe.SliceData(buf))), C.size_t(len(buf)))
	f := nativeFill{rows: int(r.rows), need: int(r.need), done: r.done != 0}
	if r.err != nil {
		return f, cError(r.err)
	}
	return f, nil
}

// closeNative frees c, its iterator and its read options.
func closeNative(c *C.telha_cursor) { C.telha_cursor_close(c) }

// cError turns a message RocksDB allocated into an error, and frees it.
func cError(msg *C.char) error {
	defer C.rocksdb_free(unsafe.Pointer(msg))
	return errors.New(C.GoString(msg))
}

// bytesPtr is b's first byte for C, or NULL for an empty b.
func bytesPtr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
