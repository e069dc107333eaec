package storagetest

import "testing"

func TestScanViews(t *testing.T) { EachEngine(t, ScanViews) }
