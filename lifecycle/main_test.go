package lifecycle

import (
	"os"
	"testing"

	"telha.dev/core/storage/storagetest"
)

// TestMain runs the tests that use the engine matrix (storagetest.EachEngine)
// and then stops what its engine kinds share.
func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
