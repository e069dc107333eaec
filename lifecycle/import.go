package lifecycle

import (
	"errors"
	"fmt"
	"io"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// An import must not leave half a tenant. It therefore reads the file
// twice. The first pass checks everything (header, every frame, every
// key's scope, the order, the counts, the checksum) and writes nothing: a
// truncated, damaged, foreign or tampered file is refused before the store
// is touched. Then the registry marks the tenant Importing, durably, and
// the second pass writes the rows in bounded batches, checking the same
// things again (the file could change between the passes); its last batch
// is durable, which on an engine with one ordered log makes every earlier
// one durable too, and carries the registry's change back to Active, so
// that the rows and the end of the import land together. If the second
// pass fails, the target tenant, empty before the import, is wiped again
// (storage.WipeTenant), durably, and marked Active.
//
// A process killed during the second pass leaves the tenant Importing,
// with the rows written so far: Resume (which every telha command runs
// when it opens a store) wipes them, durably, and marks the tenant Active
// and empty again, so that the import can simply be run again.

// Batch bounds of the second pass: every engine takes batches this size
// (etcd's default limits are 128 operations and 1.5 MiB per transaction),
// and one batch is all an import holds in memory beyond one row.
const (
	importBatchRows  = 128
	importBatchBytes = 1 << 20
)

// Import writes the rows of the export read from f, from its current
// offset on, into the active,
// empty tenant to of e: the tenant it was exported from, or another,
// under which every key is rescoped by the authority
// (storage.RescopeRow). The target must be provisioned and active in the
// registry (tenants.ErrUnknownTenant, ErrNotActive) and hold no row in any
// family (ErrTargetNotEmpty). While it is imported, the subsystems' writes
// to the target are refused (tenants.RequireWritable), and every batch of
// the import requires the tenant still Importing
// (tenants.RequireImporting): an erasure that begins meanwhile stops the
// import, which fails with ErrNotWritable and leaves the tenant to the
// erasure.
func Import(e storage.Engine, to storage.TenantScope, f io.ReadSeeker, opt Options) (Stats, error) {
	if e == nil {
		return Stats{}, fmt.Errorf("import: %w", storage.ErrNotOpen)
	}
	if to.IsZero() {
		return Stats{}, fmt.Errorf("import: %w", tenants.ErrNilScope)
	}
	if err := checkTarget(e, to); err != nil {
		return Stats{}, fmt.Errorf("import into %s: %w", to, err)
	}
	start, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return Stats{}, fmt.Errorf("import into %s: %w", to, err)
	}
	if _, err := readExport(f, to, opt.ticker("verify"), nil); err != nil {
		return Stats{}, fmt.Errorf("import into %s: verify: %w", to, err)
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return Stats{}, fmt.Errorf("import into %s: rewind: %w", to, err)
	}
	if err := tenants.SetState(e, to, tenants.Importing); err != nil {
		return Stats{}, fmt.Errorf("import into %s: %w", to, err)
	}
	w := &importWriter{e: e, to: to}
	st, err := readExport(f, to, opt.ticker("import"), w)
	if err == nil {
		err = tenants.AddState(e, &w.b, to, tenants.Active)
	}
	if err == nil {
		err = w.flush(true)
	}
	if err != nil {
		// An erasure that began meanwhile owns the tenant now: its
		// deletion takes what the import wrote before it, and the rest
		// was refused.
		if !leaving(e, to) {
			if werr := undoImport(e, to); werr != nil {
				err = errors.Join(err, werr)
			}
		}
		return Stats{}, fmt.Errorf("import into %s: %w", to, err)
	}
	return st, nil
}

// undoImport wipes the rows an import wrote into to, durably, and marks
// the tenant Active again: as empty as before the import.
func undoImport(e storage.Engine, to storage.TenantScope) error {
	if err := storage.WipeTenant(e, to); err != nil {
		return fmt.Errorf("undo the partial import: %w", err)
	}
	if err := tenants.SetState(e, to, tenants.Active); err != nil {
		return fmt.Errorf("undo the partial import: %w", err)
	}
	return nil
}

// resumeImports undoes every import a crash interrupted: each tenant the
// registry marks Importing is wiped and marked Active (undoImport). It
// returns the tenants it undid.
func resumeImports(e storage.Engine) ([]storage.TenantScope, error) {
	importing, err := tenantsIn(e, tenants.Importing)
	if err != nil {
		return nil, err
	}
	for i, scope := range importing {
		if err := undoImport(e, scope); err != nil {
			return importing[:i], fmt.Errorf("tenant %s: %w", scope, err)
		}
	}
	return importing, nil
}

// checkTarget returns nil if to is an active tenant of the registry that
// holds no row.
func checkTarget(r storage.Reader, to storage.TenantScope) error {
	t, err := tenants.Get(r, to)
	if err != nil {
		return err
	}
	if t.State != tenants.Active {
		return fmt.Errorf("tenant %s: %w", t.State, ErrNotActive)
	}
	for _, cf := range storage.Families() {
		for _, err := range r.Scan(storage.TenantAll(to, cf)) {
			if err != nil {
				return fmt.Errorf("scan %s: %w", cf, err)
			}
			return fmt.Errorf("it holds %s rows: %w", cf, ErrTargetNotEmpty)
		}
	}
	return nil
}

// readExport reads and checks the whole export in f, rescoping every row
// to scope to, and hands each to w if w is not nil.
func readExport(f io.Reader, to storage.TenantScope, tick *ticker, w *importWriter) (Stats, error) {
	x, err := newExportReader(f)
	if err != nil {
		return Stats{}, err
	}
	for {
		cf, key, value, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Stats{}, err
		}
		k, v, err := storage.RescopeRow(x.header.Scope, to, cf, key, value)
		if err != nil {
			return Stats{}, fmt.Errorf("row %x: %w: %w", key, ErrCorruptFile, err)
		}
		if w != nil {
			if err := w.put(k, v); err != nil {
				return Stats{}, err
			}
		}
		tick.row(x.n)
	}
	tick.done(x.n)
	return Stats{Families: x.header.Families, Rows: x.rows, Bytes: x.n}, nil
}

// importWriter writes rows in bounded batches.
type importWriter struct {
	e     storage.Engine
	to    storage.TenantScope
	b     storage.Batch
	bytes int
}

func (w *importWriter) put(k storage.Key, v []byte) error {
	w.b.Put(k, v)
	w.bytes += k.Len() + len(v)
	if w.b.Len() >= importBatchRows || w.bytes >= importBatchBytes {
		return w.flush(false)
	}
	return nil
}

// flush writes the batch, on the condition that the tenant's registry row
// still says Importing (tenants.RequireImporting). The last is durable and
// advances the tenant's generation, so that every process drops what it
// cached of the tenant while it was empty, this one at once. It holds
// fewer rows than the bound (put flushes a full batch), so the counter
// does not take it past.
func (w *importWriter) flush(last bool) error {
	if err := tenants.RequireImporting(w.e, &w.b, w.to); err != nil {
		return fmt.Errorf("write rows: %w", err)
	}
	var err error
	if last {
		err = storage.WriteInvalidating(w.e, w.to, func(b *storage.Batch) error {
			b.Append(&w.b)
			return nil
		})
	} else {
		err = w.e.Write(&w.b)
	}
	if err != nil {
		return fmt.Errorf("write rows: %w", tenants.Refused(w.e, w.to, err))
	}
	w.b.Reset()
	w.bytes = 0
	return nil
}
