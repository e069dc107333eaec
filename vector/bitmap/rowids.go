package bitmap

import (
	"sync"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// rowCache remembers the logical id of every row id a query has resolved,
// per (tenant, label), so that a query whose bitmap holds thousands of rows
// reads the id map once per row, not once per query.
//
// It is safe because a row id names one node for good: a row id is
// allocated once and never reused (the watermark only grows), and its id
// map row is never rewritten, only deleted when the node leaves the label,
// after which no posting holds the row. So an entry is right for every
// snapshot, old or new, whose postings hold the row. The one exception is
// a tenant wipe, which deletes the watermark and starts the row ids again
// from 0: the index drops the tenant's entries when it hears of the wipe
// (storage.OnWipe). A query that started before the wipe fills the entries
// it started with, which the wipe has already detached, never the new
// ones.
type rowCache struct {
	mu     sync.Mutex
	labels map[labelKey]*rowIDs
}

type labelKey struct {
	scope storage.TenantScope
	label storage.LabelHash
}

// rowIDs is the cache of one (tenant, label): pages of rowPage ids,
// allocated as rows in them are resolved; uuid.Nil marks a row not
// resolved yet (the nil id is never a node).
type rowIDs struct {
	mu    sync.RWMutex
	pages []*[rowPage]uuid.UUID
}

const rowPage = 1024

// of returns the cache of (scope, label).
func (c *rowCache) of(scope storage.TenantScope, label storage.LabelHash) *rowIDs {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.labels == nil {
		c.labels = make(map[labelKey]*rowIDs)
	}
	k := labelKey{scope: scope, label: label}
	ids := c.labels[k]
	if ids == nil {
		ids = new(rowIDs)
		c.labels[k] = ids
	}
	return ids
}

// forget drops every cache of scope.
func (c *rowCache) forget(scope storage.TenantScope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.labels {
		if k.scope == scope {
			delete(c.labels, k)
		}
	}
}

// resolve sets out[i] to the id of rows[i], from the cache where it has
// the row and from the id map rows of r otherwise, which it then caches.
func (ids *rowIDs) resolve(r storage.Reader, scope storage.TenantScope, label storage.LabelHash, rows []uint32, out []uuid.UUID) error {
	var missing []int
	ids.mu.RLock()
	for i, row := range rows {
		if p := int(row / rowPage); p < len(ids.pages) && ids.pages[p] != nil {
			out[i] = ids.pages[p][row%rowPage]
		}
		if out[i] == uuid.Nil {
			missing = append(missing, i)
		}
	}
	ids.mu.RUnlock()
	if len(missing) == 0 {
		return nil
	}
	for _, i := range missing {
		id, err := rowID(r, scope, label, rows[i])
		if err != nil {
			return err
		}
		out[i] = id
	}
	ids.mu.Lock()
	defer ids.mu.Unlock()
	for _, i := range missing {
		ids.put(rows[i], out[i])
	}
	return nil
}

// put caches id as the id of row. Must hold mu for writing.
func (ids *rowIDs) put(row uint32, id uuid.UUID) {
	p := int(row / rowPage)
	if p >= len(ids.pages) {
		ids.pages = append(ids.pages, make([]*[rowPage]uuid.UUID, p+1-len(ids.pages))...)
	}
	if ids.pages[p] == nil {
		ids.pages[p] = new([rowPage]uuid.UUID)
	}
	ids.pages[p][row%rowPage] = id
}
