package rocksdb

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Durable writes are committed in groups. RocksDB already lets concurrent
// writes that sync the log share one sync: the first becomes the leader of
// a write group, takes every writer waiting behind it, writes their
// batches and syncs once. But a group takes only the writers already
// waiting when its leader starts. Writers that loop (a worker that writes,
// works a little and writes again) return from one sync while the next
// group is already syncing, and wait for the one after: N such writers
// settle into two cohorts that alternate, N/2 writes per sync.
//
// The engine's group commit gathers both cohorts into one group. Its
// leader, before it writes, waits for the writers of the group just written
// to come back, as long as they came back promptly: until the queue holds
// as many writes as the last group plus those that queued while it was
// written, or until half the time a group's write takes has passed since
// the last group ended, whichever comes first. A lone writer never waits:
// it expects only itself. A write that arrives after that time never
// waits either.
//
// The group is one RocksDB write batch, written with sync: its batches
// become visible together, once the log sync that covers them has
// returned, and each write is acknowledged only then. A batch that fails
// its checks, or whose conditions do not hold (conditional.go), is left
// out of the group and fails alone; a write that fails fails every batch
// of the group, none of which was applied.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*durableWrite // waiting for the next group
	leading bool            // a leader is gathering or writing a group
	// expected is how many writes the next group waits for: the size of
	// the last group, and the writes that queued while it was written.
	expected int
	ended    time.Time     // when the last group's write returned
	took     time.Duration // a moving average of a group's write time
	arrived  chan struct{} // capacity 1: a write joined the queue
}

// maxGather bounds the wait for a group's writers, whatever a write takes.
const maxGather = 2 * time.Millisecond

// durableWrite is one WriteDurable call waiting for its group.
type durableWrite struct {
	batch *storage.Batch
	err   error         // set before done is closed
	done  chan struct{} // closed once the group is written
	lead  chan struct{} // closed when this call is to lead the next group
}

// join queues w and reports whether its caller is to lead the next group,
// there being no leader.
func (g *groupCommit) join(w *durableWrite) (lead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(g.queue, w)
	if !g.leading {
		g.leading = true
		return true
	}
	select {
	case g.arrived <- struct{}{}:
	default:
	}
	return false
}

// gather waits, as described on groupCommit, for the writers expected in
// the next group, then takes the queue as the group.
func (g *groupCommit) gather() []*durableWrite {
	g.mu.Lock()
	defer g.mu.Unlock()
	deadline := g.ended.Add(min(g.took/2, maxGather))
	for len(g.queue) < g.expected {
		wait := time.Until(deadline)
		if wait <= 0 {
			break
		}
		g.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-g.arrived:
		case <-timer.C:
		}
		timer.Stop()
		g.mu.Lock()
	}
	group := g.queue
	g.queue = nil
	return group
}

// handOff records the group of size n just written, which took took, puts
// the writes of later back at the head of the queue, and passes the lead
// to the first queued write, if any.
func (g *groupCommit) handOff(n int, took time.Duration, later []*durableWrite) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(later, g.queue...)
	g.ended = time.Now()
	g.took = (3*g.took + took) / 4
	g.expected = n + len(g.queue)
	if len(g.queue) == 0 {
		g.leading = false
		return
	}
	close(g.queue[0].lead)
}

// writeDurable commits b in the next group and returns once the log sync
// that covers it has returned; the caller has entered the engine.
func (e *Engine) writeDurable(b *storage.Batch) error {
	w := &durableWrite{batch: b, done: make(chan struct{}), lead: make(chan struct{})}
	if !e.group.join(w) {
		select {
		case <-w.done:
			return w.err
		case <-w.lead:
		}
	}
	group := e.group.gather()
	start := time.Now()
	// Should the write panic, the group fails with errLeaderPanicked and
	// the lead passes on: the engine stays usable, nothing is acknowledged.
	failAll(group, errLeaderPanicked)
	var later []*durableWrite
	defer func() {
		e.group.handOff(len(group)-len(later), time.Since(start), later)
		for _, w := range group {
			if !slices.Contains(later, w) {
				close(w.done)
			}
		}
	}()
	later = e.writeGroup(group)
	return w.err
}

// errLeaderPanicked is the error of the writes of a group whose leader
// panicked while writing it.
var errLeaderPanicked = errors.New("the write of its group panicked")

// writeGroup writes the batches of group as one RocksDB write that syncs
// the log, and sets each write's error. Each batch is checked as it is
// copied, as Write does; one that fails is rolled back out of the group.
// Conditional batches go first, each checked against the store (see
// conditional.go); it returns those that must wait for the next group.
// group[0], the leader's own write, never waits: it is checked first.
func (e *Engine) writeGroup(group []*durableWrite) (later []*durableWrite) {
	if slices.ContainsFunc(group, func(w *durableWrite) bool { return w.batch.Conditional() }) {
		e.writes.Lock()
		defer e.writes.Unlock()
	} else {
		e.writes.RLock()
		defer e.writes.RUnlock()
	}
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	buf := keyBuffers.Get().(*[storage.MaxKeyLen]byte)
	defer keyBuffers.Put(buf)
	var placed written
	var ok []*durableWrite
	count := 0
	for _, conditional := range []bool{true, false} {
		for _, w := range group {
			if w.batch.Conditional() != conditional {
				continue
			}
			if conditional && placed.names(w.batch) {
				later = append(later, w)
				continue
			}
			wb.SetSavePoint()
			err := e.copyBatch(wb, w.batch, buf[:0])
			if err == nil && conditional {
				err = e.holds(w.batch, buf[:0])
			}
			if err != nil {
				w.err = fmt.Errorf("write batch of %d: %w", w.batch.Len(), err)
				if err := wb.RollbackToSavePoint(); err != nil {
					// Nothing else can be trusted in the write batch.
					failAll(group, fmt.Errorf("roll back a batch that failed its checks: %w", err))
					return nil
				}
				continue
			}
			if conditional {
				placed.add(w.batch)
			}
			ok = append(ok, w)
			count += w.batch.Len()
		}
	}
	if len(ok) == 0 {
		return later
	}
	err := e.logged(true, uint64(count), func() error { return e.db.Write(e.durable, wb) })
	if err != nil {
		failAll(ok, err)
		return later
	}
	for _, w := range ok {
		w.err = nil
	}
	return later
}

// failAll sets the error of every write of group to cause.
func failAll(group []*durableWrite, cause error) {
	for _, w := range group {
		w.err = fmt.Errorf("write batch of %d: %w", w.batch.Len(), cause)
	}
}
