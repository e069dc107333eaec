package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"telha.dev/lifecycle"
)

// Long work shows its progress on stderr: on a terminal, a bar
// (schollz/progressbar) with the rate and, where the total is known, the
// time left, redrawn in place; when stderr is not a terminal (a log, a
// pipe, a test), plain lines, one per step or about one a second; with -q,
// nothing.

// showsBars reports whether progress is drawn as bars: stderr is a
// terminal and -q is not given.
func (in *invocation) showsBars() bool {
	f, ok := in.stderr.(*os.File)
	return !in.quiet && ok && isTerminal(f)
}

// barOn returns a progress bar of max units (bytes; -1 for a spinner of
// unknown length) described as desc, drawn on stderr when it is a
// terminal and -q is not given; otherwise nil.
func (in *invocation) barOn(desc string, max int64) *progressbar.ProgressBar {
	if !in.showsBars() {
		return nil
	}
	f := in.stderr.(*os.File)
	if max < 0 {
		// A spinner: no count, no rate, the elapsed time.
		return progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("telha: "+desc),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(f) }),
		)
	}
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription("telha: "+desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(f) }),
	)
}

// rowProgress returns the Options that report the rows and bytes a long
// lifecycle operation (an export, an import) has done so far, and the
// function to call when it ends. On a terminal it is a bar over total
// bytes (0: unknown); otherwise a line about once a second and one at the
// end of each phase: "telha: tenant export: 1200000 rows, 310.2 MB".
func (in *invocation) rowProgress(total int64) (lifecycle.Options, func()) {
	max := total
	if max <= 0 {
		max = -1
	}
	if bar := in.barOn(in.name(), max); bar != nil {
		return lifecycle.Options{Progress: func(phase string, rows uint64, bytes int64) {
			bar.Describe(fmt.Sprintf("telha: tenant %s: %d rows", phase, rows))
			_ = bar.Set64(bytes)
		}}, func() { _ = bar.Finish() }
	}
	w := in.progressLines()
	return lifecycle.Options{Progress: func(phase string, rows uint64, bytes int64) {
		fmt.Fprintf(w, "telha: tenant %s: %d rows, %.1f MB\n", phase, rows, float64(bytes)/1e6)
	}}, func() {}
}

// stepProgress reports the steps of an erasure, a redaction, a restore:
// on a terminal a spinner with the elapsed time and the latest step;
// otherwise one line per step. The function returned ends it.
func (in *invocation) stepProgress() (func(string, ...any), func()) {
	if bar := in.barOn(in.name(), -1); bar != nil {
		return func(format string, args ...any) {
			bar.Describe("telha: " + in.name() + ": " + oneNotation(fmt.Sprintf(format, args...)))
			_ = bar.Add64(1)
		}, func() { _ = bar.Finish() }
	}
	return progressTo(in.name(), in.progressLines()), func() {}
}

// spinner shows, on a terminal, that work of unknown length (a
// checkpoint) goes on; the function returned ends it.
func (in *invocation) spinner(desc string) func() {
	bar := in.barOn(desc, -1)
	if bar == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = bar.Add64(0)
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		_ = bar.Finish()
	}
}

// meteredFile is an input file whose reads move a bar: a document that
// sources.Store.Ingest reads twice (once to check and hash it, once to
// store it), so the bar is over twice its length.
type meteredFile struct {
	*os.File
	bar *progressbar.ProgressBar
}

func (m meteredFile) Read(p []byte) (int, error) {
	n, err := m.File.Read(p)
	_ = m.bar.Add64(int64(n))
	return n, err
}

// meter returns f as the reader of an ingest, moving a bar on a terminal,
// and the function that ends the bar.
func (in *invocation) meter(f *os.File) (io.ReadSeeker, func()) {
	fi, err := f.Stat()
	if err != nil {
		return f, func() {}
	}
	bar := in.barOn(in.name()+" "+f.Name(), 2*fi.Size())
	if bar == nil {
		return f, func() {}
	}
	return meteredFile{File: f, bar: bar}, func() { _ = bar.Finish() }
}
