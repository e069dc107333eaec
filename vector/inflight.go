package vector

// A write through a Store advances the vectors sequence of each index it
// touches (Store.write) and is applied to the index just after the
// engine has it. A search that reads the counters in between finds the
// index one write behind, which, were it another process's write, would
// mean the index must be loaded again (memory.validate). The sequence
// values that this process's writes claim are so recorded until the
// write is applied or has failed: a search that finds only such values
// missing waits for those writes to be applied, a moment, instead of
// dropping the index and loading it all again.

// claim is a sequence value of an index that a write of this process
// expects to take: done is closed once the write is applied or failed.
type claim struct {
	key   indexKey
	value uint64
	done  chan struct{}
}

// claim records that a write is about to take the values of keys.
func (mem *memory) claim(keys []indexKey, values []uint64) []claim {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if mem.claims == nil {
		mem.claims = make(map[indexKey]map[uint64]chan struct{})
	}
	out := make([]claim, len(keys))
	for i, key := range keys {
		c := claim{key: key, value: values[i], done: make(chan struct{})}
		if mem.claims[key] == nil {
			mem.claims[key] = make(map[uint64]chan struct{})
		}
		mem.claims[key][c.value] = c.done
		out[i] = c
	}
	return out
}

// release ends claims: their write was applied, or failed.
func (mem *memory) release(claims []claim) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	for _, c := range claims {
		if byValue := mem.claims[c.key]; byValue[c.value] == c.done {
			delete(byValue, c.value)
			if len(byValue) == 0 {
				delete(mem.claims, c.key)
			}
		}
		close(c.done)
	}
}

// awaitOwn waits until the writes of this process that claimed the
// values from v.seq to hi (exclusive) of key are applied, and reports
// whether every value in that range was such a write's or one the view
// already holds (out of order). It reports false at once, waiting for
// nothing, if some value is neither: another process wrote it.
func (mem *memory) awaitOwn(key indexKey, v *view, hi uint64) bool {
	var wait []chan struct{}
	mem.mu.Lock()
	for value := v.seq; value < hi; value++ {
		if done, ok := mem.claims[key][value]; ok {
			wait = append(wait, done)
		} else if !v.ahead[value+1] {
			mem.mu.Unlock()
			return false
		}
	}
	mem.mu.Unlock()
	for _, done := range wait {
		<-done
	}
	return true
}
