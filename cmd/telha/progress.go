package main

import (
	"fmt"

	"telha.dev/lifecycle"
)

// rowProgress returns the Options that report the rows and bytes a long
// lifecycle operation (an export, an import) has done so far, on stderr:
// "telha: tenant export: 1200000 rows, 310.2 MB"; nothing with -q.
func (in *invocation) rowProgress() lifecycle.Options {
	w := in.progressLines()
	return lifecycle.Options{Progress: func(phase string, rows uint64, bytes int64) {
		fmt.Fprintf(w, "telha: tenant %s: %d rows, %.1f MB\n", phase, rows, float64(bytes)/1e6)
	}}
}

// stepProgress reports the steps of an erasure, a redaction, a restore,
// on stderr, one line each; nothing with -q.
func (in *invocation) stepProgress() func(string, ...any) {
	return progressTo(in.name(), in.progressLines())
}
