package rocksdb

// FlushFamily is flushFamily, for the external tests: the model test's
// upkeep (conformance_test.go).
var FlushFamily = flushFamily
