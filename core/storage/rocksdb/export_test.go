package rocksdb

// FlushFamily is flushFamily, for the external tests (model_test.go).
var FlushFamily = flushFamily
