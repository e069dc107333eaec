package rocksdb_test

import (
	"testing"

	"github.com/linxGnu/grocksdb"
)

func TestOpen(t *testing.T) {
	db, err := grocksdb.OpenDb(grocksdb.NewDefaultOptions(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	it := db.NewIteratorCF(grocksdb.NewDefaultReadOptions(), &grocksdb.ColumnFamilyHandle{})
	it.Close()
}
