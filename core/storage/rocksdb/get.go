package rocksdb

import (
	"fmt"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Get returns a copy of the value stored at k, or storage.ErrNotFound.
func (e *Engine) Get(k storage.Key) ([]byte, error) {
	if e == nil {
		return nil, fmt.Errorf("get: %w", storage.ErrNotOpen)
	}
	return e.get(e.read, nil, k)
}

// get reads k with ro, on behalf of snapshot s when not nil. The value is
// read pinned in RocksDB's memory (no C-side copy), copied once into Go
// memory, and the pin released. An absent key returns the bare
// storage.ErrNotFound: it is a common answer, not worth an allocation.
func (e *Engine) get(ro *grocksdb.ReadOptions, s *Snapshot, k storage.Key) ([]byte, error) {
	if !k.Valid() {
		return nil, storage.ErrInvalidKey
	}
	if err := e.enter(s); err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	defer e.mu.RUnlock()
	buf := keyBuffers.Get().(*[storage.MaxKeyLen]byte)
	defer keyBuffers.Put(buf)
	h, err := e.db.GetPinnedCF(ro, e.families[k.Family()], k.AppendTo(buf[:0]))
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", k, classify(err))
	}
	if !h.Exists() {
		return nil, storage.ErrNotFound
	}
	defer h.Destroy()
	data := h.Data()
	v := make([]byte, len(data))
	copy(v, data)
	return v, nil
}
