module telha.dev/lifecycle

go 1.26.0

replace telha.dev/core => ../core

require (
	github.com/google/uuid v1.6.0
	lukechampine.com/blake3 v1.4.1
	pgregory.net/rapid v1.3.0
	telha.dev/core v0.0.0-00010101000000-000000000000
	telha.dev/sources v0.0.0-00010101000000-000000000000
	telha.dev/temporal v0.0.0-00010101000000-000000000000
	telha.dev/vector v0.0.0-00010101000000-000000000000
)

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
)

require (
	github.com/RoaringBitmap/roaring/v2 v2.30.0 // indirect
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/linxGnu/grocksdb v1.7.14 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/exp v0.0.0-20240325151524-a685a6edb6d8 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace telha.dev/temporal => ../temporal

replace telha.dev/vector => ../vector

replace telha.dev/sources => ../sources

replace telha.dev/core/storage/etcd => ../core/storage/etcd
