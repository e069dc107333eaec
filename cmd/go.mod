module telha.dev/cmd

go 1.26.0

require (
	telha.dev/analyzers v0.0.0-00010101000000-000000000000
	telha.dev/core v0.0.0-00010101000000-000000000000
)

require (
	golang.org/x/tools v0.52.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)

replace (
	telha.dev/analyzers => ../analyzers
	telha.dev/core => ../core
)
