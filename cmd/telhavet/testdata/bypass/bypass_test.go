package bypass_test

import (
	"testing"

	"telha.dev/core/storage"
)

func TestRoot(t *testing.T) {
	var sys storage.SystemScope // bypass
	_ = sys
}
