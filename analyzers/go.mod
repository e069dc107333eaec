module telha.dev/analyzers

go 1.26.0

require golang.org/x/tools v0.52.0 // indirect
