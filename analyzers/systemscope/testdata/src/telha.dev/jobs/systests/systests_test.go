package systests

import (
	"testing"

	"telha.dev/core/storage"
)

func TestSystem(t *testing.T) {
	_ = storage.SystemScope{} // want `storage.SystemScope used`
}
