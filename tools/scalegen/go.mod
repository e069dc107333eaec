module telha.dev/tools/scalegen

go 1.26.0
