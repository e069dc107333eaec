package keytests_test

import (
	"testing"

	"telha.dev/core/storage"
)

func TestExternal(t *testing.T) {
	_, _ = storage.FromStoredBounds(storage.Edges, nil, nil) // want `storage.FromStoredBounds used`
}
