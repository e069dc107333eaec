module telha.dev/core/storage/contrib

go 1.26.0
