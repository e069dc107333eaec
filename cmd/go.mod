module telha.dev/cmd

go 1.26.0

require (
	telha.dev/analyzers v0.0.0-00010101000000-000000000000
	telha.dev/core v0.0.0-00010101000000-000000000000
	telha.dev/graph v0.0.0-00010101000000-000000000000
	telha.dev/jobs v0.0.0-00010101000000-000000000000
	telha.dev/temporal v0.0.0-00010101000000-000000000000
	telha.dev/vector v0.0.0-00010101000000-000000000000
)

require (
	github.com/google/uuid v1.6.0
	golang.org/x/tools v0.52.0
	honnef.co/go/tools v0.8.2
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/RoaringBitmap/roaring/v2 v2.30.0 // indirect
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/linxGnu/grocksdb v1.7.14 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	lukechampine.com/blake3 v1.4.1 // indirect
)

replace (
	telha.dev/analyzers => ../analyzers
	telha.dev/core => ../core
	telha.dev/graph => ../graph
	telha.dev/jobs => ../jobs
	telha.dev/temporal => ../temporal
	telha.dev/vector => ../vector
)
