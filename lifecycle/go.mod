module telha.dev/lifecycle

go 1.26.0

replace telha.dev/core => ../core
