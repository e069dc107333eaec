module telha.dev/sources

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	lukechampine.com/blake3 v1.4.1
	telha.dev/core v0.0.0-00010101000000-000000000000
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace telha.dev/core => ../core
