package systests_test

import (
	"testing"

	"telha.dev/core/storage"
)

func TestExternal(t *testing.T) {
	var s storage.SystemScope // want `storage.SystemScope used`
	_ = s
}
