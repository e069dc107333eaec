package storagetest

import (
	"sync"

	"telha.dev/core/storage"
)

// A RacingWriter is an engine that runs a function, once armed (Arm), at
// the next batch it is given, just before it applies it: in the instant
// between a write's reads and its batch, where another process's write,
// erasure or change of a tenant's state would fall. Everything else is
// the engine's; a race runs on the engine itself, not through the
// RacingWriter, so it does not fire again.
type RacingWriter struct {
	storage.Engine

	mu   sync.Mutex
	race func()
}

// Arm makes race run at the next batch given to Write or WriteDurable.
func (e *RacingWriter) Arm(race func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.race = race
}

// Armed reports whether the race is still to run: no batch came since Arm.
func (e *RacingWriter) Armed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.race != nil
}

func (e *RacingWriter) fire() {
	e.mu.Lock()
	race := e.race
	e.race = nil
	e.mu.Unlock()
	if race != nil {
		race()
	}
}

// Write runs the armed race, then the engine's Write.
func (e *RacingWriter) Write(b *storage.Batch) error {
	e.fire()
	return e.Engine.Write(b)
}

// WriteDurable runs the armed race, then the engine's WriteDurable.
func (e *RacingWriter) WriteDurable(b *storage.Batch) error {
	e.fire()
	return e.Engine.WriteDurable(b)
}

// CompactRanges is the engine's, or storage.ErrCompactUnsupported if it
// cannot compact.
func (e *RacingWriter) CompactRanges(rs []storage.ScanRange) error {
	c, ok := e.Engine.(storage.Compactor)
	if !ok {
		return storage.ErrCompactUnsupported
	}
	return c.CompactRanges(rs)
}
