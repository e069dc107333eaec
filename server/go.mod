module telha.dev/server

go 1.26.0

replace telha.dev/core => ../core

replace telha.dev/core/storage/etcd => ../core/storage/etcd

replace telha.dev/temporal => ../temporal

replace telha.dev/graph => ../graph

replace telha.dev/vector => ../vector

replace telha.dev/jobs => ../jobs

replace telha.dev/sources => ../sources

replace telha.dev/lifecycle => ../lifecycle

require (
	connectrpc.com/connect v1.21.1
	github.com/google/uuid v1.6.0
	google.golang.org/protobuf v1.36.12
	telha.dev/core v0.0.0-00010101000000-000000000000
	telha.dev/lifecycle v0.0.0-00010101000000-000000000000
	telha.dev/temporal v0.0.0-00010101000000-000000000000
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
	lukechampine.com/blake3 v1.4.1 // indirect
	telha.dev/sources v0.0.0-00010101000000-000000000000 // indirect
	telha.dev/vector v0.0.0-00010101000000-000000000000 // indirect
)

tool (
	connectrpc.com/connect/cmd/protoc-gen-connect-go
	google.golang.org/protobuf/cmd/protoc-gen-go
)
