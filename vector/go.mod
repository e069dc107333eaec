module telha.dev/vector

go 1.26.0

require (
	github.com/RoaringBitmap/roaring/v2 v2.30.0
	github.com/google/uuid v1.6.0
	pgregory.net/rapid v1.3.0
	telha.dev/core v0.0.0-00010101000000-000000000000
	telha.dev/temporal v0.0.0-00010101000000-000000000000
)

require (
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/linxGnu/grocksdb v1.7.14 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/exp v0.0.0-20230817173708-d852ddb80c63 // indirect
	golang.org/x/sys v0.49.0 // indirect
	lukechampine.com/blake3 v1.4.1 // indirect
)

replace (
	telha.dev/core => ../core
	telha.dev/temporal => ../temporal
)
