package temporal

import (
	"sync"
	"time"

	"telha.dev/core/storage"
)

// Clock hands out strictly increasing transaction times: the wall clock
// when it has moved on, otherwise one microsecond after the last time. One
// Clock serves a whole Store; see the package documentation for how it
// stays monotonic across restarts.
type Clock struct {
	mu   sync.Mutex
	wall func() storage.Timestamp
	last storage.Timestamp
}

// NewClock returns a clock over wall, or over time.Now when wall is nil.
// Tests inject a wall clock that stands still or steps back.
func NewClock(wall func() storage.Timestamp) *Clock {
	if wall == nil {
		wall = func() storage.Timestamp { return storage.TimestampOf(time.Now()) }
	}
	return &Clock{wall: wall, last: storage.MinTimestamp}
}

// Next returns a transaction time above every earlier one and above every
// time passed to Observe.
func (c *Clock) Next() storage.Timestamp {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.wall()
	if t <= c.last {
		t = c.last + 1
	}
	c.last = t
	return t
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
func (c *Clock) Now() storage.Timestamp { return c.wall() }
