package vector

import (
	"sync"

	"telha.dev/core/storage"
)

// The Stores opened over one engine value share one memory: a write
// through any of them reaches the indexes every one of them searches,
// and a Stage through one is settled by a search through another. Each
// Store's own Options apply to its searches; a graph is shaped by the
// Options of the Store whose search or Warm started it.
//
// The registry holds a memory while a Store is attached to it: Close
// detaches a Store, and so does the garbage collector for a Store that is
// dropped without Close. The last Store to leave frees the memory.
var shared = struct {
	mu       sync.Mutex
	byEngine map[storage.Engine]*memory
}{byEngine: make(map[storage.Engine]*memory)}

// attach returns the memory of eng, made if no Store is attached to it.
// An engine that cannot key a map (nil, or a value of a type that is not
// comparable) gets a memory of its own.
func attach(eng storage.Engine) *memory {
	if !storage.Identifiable(eng) {
		mem := newMemory(eng)
		mem.refs = 1
		return mem
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	mem := shared.byEngine[eng]
	if mem == nil {
		mem = newMemory(eng)
		shared.byEngine[eng] = mem
	}
	mem.refs++
	return mem
}

// detach ends one Store's use of mem, and frees mem when it was the last.
func detach(mem *memory) {
	shared.mu.Lock()
	mem.refs--
	last := mem.refs == 0
	if last && mem.eng != nil && shared.byEngine[mem.eng] == mem {
		delete(shared.byEngine, mem.eng)
	}
	shared.mu.Unlock()
	if last {
		mem.close()
	}
}
