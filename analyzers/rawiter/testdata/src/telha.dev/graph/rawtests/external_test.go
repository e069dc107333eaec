package rawtests_test

import (
	"testing"

	rdb "github.com/linxGnu/grocksdb" // want `import of raw engine binding`
)

func TestExternal(t *testing.T) {
	var it *rdb.Iterator // want `grocksdb.Iterator`
	_ = it
}
