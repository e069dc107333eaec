package xtests_test

import (
	"testing"

	"telha.dev/core/storage"
)

func TestSystem(t *testing.T) {
	if (storage.SystemScope{}).FullFamily(storage.Jobs).Valid() { // bypass
		t.Log("a sweep")
	}
}
