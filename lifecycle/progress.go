package lifecycle

import (
	"time"

	"telha.dev/core/storage"
)

// Stats counts what an export or import moved.
type Stats struct {
	Families []storage.ColumnFamily
	Rows     []uint64 // per family of Families
	Bytes    int64    // of the export file
}

// Total returns the number of rows of every family.
func (s Stats) Total() uint64 {
	var n uint64
	for _, r := range s.Rows {
		n += r
	}
	return n
}

// Options tune an export or import.
type Options struct {
	// Progress, if set, is called now and then during long work (about
	// every ProgressEvery) and once at the end, with what was done so far
	// and what is being done ("export", "verify", "import").
	Progress func(phase string, rows uint64, bytes int64)
	// ProgressEvery is the interval between Progress calls; 0 means one
	// second.
	ProgressEvery time.Duration
}

// ticker calls Options.Progress at most once per interval.
type ticker struct {
	opt   Options
	phase string
	next  time.Time
	rows  uint64
}

func (o Options) ticker(phase string) *ticker {
	return &ticker{opt: o, phase: phase, next: time.Now().Add(o.every())}
}

func (o Options) every() time.Duration {
	if o.ProgressEvery > 0 {
		return o.ProgressEvery
	}
	return time.Second
}

// row counts one row and reports if the interval has passed. It reads the
// clock once every 4096 rows.
func (t *ticker) row(bytes int64) {
	t.rows++
	if t.opt.Progress == nil || t.rows%4096 != 0 {
		return
	}
	if now := time.Now(); now.After(t.next) {
		t.next = now.Add(t.opt.every())
		t.opt.Progress(t.phase, t.rows, bytes)
	}
}

// done reports the end of the phase.
func (t *ticker) done(bytes int64) {
	if t.opt.Progress != nil {
		t.opt.Progress(t.phase, t.rows, bytes)
	}
}
