package storage_test

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// The external tests of the authority are part of it too.
func TestExternal(t *testing.T) {
	var s storage.SystemScope
	k := s.JobKey(0, 1, 2, [16]byte{})
	_, _ = storage.FromStoredBounds(storage.Jobs, k.View(), nil)
	_ = storage.Key{}
	buf := make([]byte, 64)
	_ = (*storage.Key)(unsafe.Pointer(&buf))
	_ = reflect.New(reflect.TypeFor[storage.Key]())
	db, _ := grocksdb.OpenDb(grocksdb.NewDefaultOptions(), t.TempDir())
	db.NewIterator(grocksdb.NewDefaultReadOptions()).Close()
}
