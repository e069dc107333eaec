// Module telha.dev holds a directory jobs/, whose package path is that of
// the jobs module: it is not telha.dev/jobs, whose facades it may not use.
module telha.dev

go 1.26.0
