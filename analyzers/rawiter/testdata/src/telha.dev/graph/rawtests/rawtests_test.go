package rawtests

import (
	"testing"

	"github.com/linxGnu/grocksdb" // want `import of raw engine binding`
)

func TestRaw(t *testing.T) {
	db, _ := grocksdb.OpenDb(nil, t.TempDir()) // want `grocksdb.OpenDb`
	db.NewIterator(nil).Close()                // want `grocksdb.DB.NewIterator` `grocksdb.Iterator.Close`
}
