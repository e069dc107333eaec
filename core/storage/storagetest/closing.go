package storagetest

import (
	"errors"
	"iter"
	"sync"
	"testing"

	"telha.dev/core/storage"
)

// testCloseDuringScan pins what a scan in progress does when its engine or
// snapshot closes under it, from its own loop body or from another
// goroutine: it yields no row after Close has returned; its next element is
// ErrClosed, and that is its last. A scan made before Close and ranged
// after it yields only ErrClosed.
func testCloseDuringScan(t *testing.T, h Harness) {
	closeDuringScan(t, "scan", func(t *testing.T) storage.Engine { return open(t, h) }, storage.Reader.Scan)
}

// closeDuringScan is testCloseDuringScan for the scans scan makes (Scan, or
// storage.ScanView's lent scans) on the engines open returns.
func closeDuringScan(t *testing.T, what string, open func(*testing.T) storage.Engine, scan func(storage.Reader, storage.ScanRange) iter.Seq2[storage.KV, error]) {
	const rows, closeAt = 50, 3
	type closer struct {
		name string
		// start returns the reader to scan and the Close to call.
		start func(t *testing.T, e storage.Engine) (storage.Reader, func() error)
	}
	closers := []closer{
		{"engine " + what + ", engine Close", func(_ *testing.T, e storage.Engine) (storage.Reader, func() error) { return e, e.Close }},
		{"snapshot " + what + ", snapshot Close", func(t *testing.T, e storage.Engine) (storage.Reader, func() error) {
			s, err := e.Snapshot()
			must(t, err)
			return s, s.Close
		}},
		{"snapshot " + what + ", engine Close", func(t *testing.T, e storage.Engine) (storage.Reader, func() error) {
			s, err := e.Snapshot()
			must(t, err)
			return s, e.Close
		}},
	}
	for _, c := range closers {
		for _, fromBody := range []bool{true, false} {
			e := open(t)
			r, _ := historyRows(t, e, 1, rows)
			rd, closeIt := c.start(t, e)
			what := c.name + " from another goroutine"
			if fromBody {
				what = c.name + " from the loop body"
			}
			seen, after := 0, []error(nil)
			var bodyErr error
			closed := false
			body := func() {
				for _, err := range scan(rd, r) {
					switch {
					case closed:
						after = append(after, err)
						continue
					case err != nil:
						bodyErr = err
						return
					}
					if seen++; seen < closeAt {
						continue
					}
					if fromBody {
						bodyErr = closeIt()
					} else {
						var wg sync.WaitGroup
						wg.Go(func() { bodyErr = closeIt() })
						wg.Wait()
					}
					if bodyErr != nil {
						return
					}
					closed = true
				}
			}
			if !within(t, what, body) {
				t.FailNow()
			}
			must(t, bodyErr)
			if len(after) != 1 || !errors.Is(after[0], storage.ErrClosed) {
				t.Errorf("%s after %d rows: the scan went on with %v; want only ErrClosed", what, closeAt, after)
			}
		}
	}

	// A scan made before Close and ranged after it.
	e := open(t)
	r, _ := historyRows(t, e, 1, rows)
	snap, err := e.Snapshot()
	must(t, err)
	engineScan, snapScan := scan(e, r), scan(snap, r)
	must(t, e.Close())
	for name, seq := range map[string]iter.Seq2[storage.KV, error]{"engine": engineScan, "snapshot": snapScan} {
		if got, err := scanSeq(seq); len(got) != 0 || !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s %s made before Close, ranged after: %d rows, %v; want only ErrClosed", name, what, len(got), err)
		}
	}
}

// testConcurrentClose closes an engine from several goroutines at once while
// others read and write it: exactly one Close returns nil, the others
// ErrClosed; every other call succeeds or returns ErrClosed; nothing panics
// or hangs.
func testConcurrentClose(t *testing.T, h Harness) {
	const closers, workers, ops = 4, 4, 200
	e := open(t, h)
	r, _ := historyRows(t, e, 1, 20)
	start := make(chan struct{})
	var wg sync.WaitGroup
	closeErrs := make(chan error, closers)
	for range closers {
		wg.Go(func() {
			<-start
			closeErrs <- safeCall(e.Close)
		})
	}
	workErrs := make(chan error, workers*ops)
	for w := range workers {
		wg.Go(func() {
			<-start
			for i := range ops {
				var err error
				switch i % 4 {
				case 0:
					_, err = e.Get(nodeKey(byte(w)))
				case 1:
					err = safeCall(func() error { return e.Put(nodeKey(byte(w)), []byte("x")) })
				case 2:
					err = safeCall(func() error { _, err := scanAll(e, r); return err })
				case 3:
					err = safeCall(func() error {
						s, err := e.Snapshot()
						if err == nil {
							_, err = s.Get(nodeKey(1))
							if cerr := s.Close(); err == nil || errors.Is(err, storage.ErrNotFound) {
								err = cerr
							}
						}
						return err
					})
				}
				if err != nil && !errors.Is(err, storage.ErrClosed) && !errors.Is(err, storage.ErrNotFound) {
					workErrs <- err
				}
			}
		})
	}
	if !within(t, "concurrent Close", func() { close(start); wg.Wait() }) {
		t.FailNow()
	}
	close(closeErrs)
	close(workErrs)
	succeeded := 0
	for err := range closeErrs {
		switch {
		case err == nil:
			succeeded++
		case !errors.Is(err, storage.ErrClosed):
			t.Errorf("concurrent Close = %v, want nil or ErrClosed", err)
		}
	}
	if succeeded != 1 {
		t.Errorf("%d concurrent Closes returned nil, want exactly 1", succeeded)
	}
	for err := range workErrs {
		t.Errorf("a call racing Close = %v, want success or ErrClosed", err)
	}
}
