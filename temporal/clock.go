package temporal

import (
	"fmt"
	"sync"
	"time"

	"telha.dev/core/storage"
)

// Clock hands out strictly increasing transaction times: the wall clock
// when it has moved on, otherwise one microsecond after the last time. One
// Clock serves a whole Store; see the package documentation for how it
// stays monotonic across restarts.
//
// Transaction times lie below Forever, which marks an open interval. A
// clock that would reach it (a wall clock reading the end of time, or a
// stored time at the end of the range) is exhausted: Next fails with
// ErrClockExhausted rather than wrap around to the start of time.
//
// The zero Clock reads time.Now.
type Clock struct {
	mu   sync.Mutex
	wall func() storage.Timestamp
	last storage.Timestamp
}

// NewClock returns a clock over wall, or over time.Now when wall is nil.
// Tests inject a wall clock that stands still or steps back.
func NewClock(wall func() storage.Timestamp) *Clock {
	return &Clock{wall: wall, last: storage.MinTimestamp}
}

// read returns the wall clock's time; a nil Clock reads time.Now too.
func (c *Clock) read() storage.Timestamp {
	if c == nil || c.wall == nil {
		return storage.TimestampOf(time.Now())
	}
	return c.wall()
}

// Next returns a transaction time above every earlier one and above every
// time passed to Observe, or ErrClockExhausted when no time is left below
// Forever.
func (c *Clock) Next() (storage.Timestamp, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.read()
	if t <= c.last {
		if c.last >= Forever-1 {
			return 0, fmt.Errorf("next transaction time after %s: %w", c.last, ErrClockExhausted)
		}
		t = c.last + 1
	}
	if t >= Forever {
		return 0, fmt.Errorf("wall clock reads %s, the open end of time: %w", t, ErrClockExhausted)
	}
	c.last = t
	return t, nil
}

// Observe raises the clock so that later times lie above t: a transaction
// time found in storage.
func (c *Clock) Observe(t storage.Timestamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t > c.last {
		c.last = t
	}
}

// Last returns the latest time handed out or observed.
func (c *Clock) Last() storage.Timestamp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Now reads the wall clock without handing out a transaction time: the
// valid time of "current" reads.
func (c *Clock) Now() storage.Timestamp { return c.read() }
