package credentials

import (
	"os"
	"testing"

	"telha.dev/core/storage/storagetest"
)

// TestMain runs the tests that use the engine matrix (storagetest.EachEngine)
// and then stops what its engine kinds share. An engine of another module
// joins this package's matrix with one blank import of its test package.
func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
