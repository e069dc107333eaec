package keytests

import (
	"testing"

	"telha.dev/core/storage"
)

func TestKey(t *testing.T) {
	_ = storage.Key{} // want `composite literal of opaque storage.Key`
}
