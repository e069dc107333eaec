module telha.dev/core/storagex

go 1.26.0
