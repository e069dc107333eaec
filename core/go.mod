module telha.dev/core

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	github.com/linxGnu/grocksdb v1.7.14
	github.com/zeebo/xxh3 v1.1.0
	lukechampine.com/blake3 v1.4.1
	pgregory.net/rapid v1.3.0
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
