package storage

// DescribeKey renders key bytes of family cf readably. Placeholder until the
// decoders land.
func DescribeKey(cf ColumnFamily, b []byte) (string, error) { return "", nil }
