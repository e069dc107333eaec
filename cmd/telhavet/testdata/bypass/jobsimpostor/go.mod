module telha.dev/jobs/impostor

go 1.26.0
