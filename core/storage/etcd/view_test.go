package etcd_test

import (
	"testing"

	"telha.dev/core/storage/storagetest"
)

// TestScanViews runs the lent-scan tests on the matrix, etcd included: the
// etcd engine has no storage.ViewScanner, so storage.ScanView falls back to
// its Scan, and must behave as the engines that lend their rows.
func TestScanViews(t *testing.T) { storagetest.EachEngine(t, storagetest.ScanViews) }
