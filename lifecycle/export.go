package lifecycle

import (
	"errors"
	"fmt"
	"io"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// Export writes every row of tenant scope, in all 13 families, to w as one
// export file (format.go): from one snapshot of e, so the file is one
// consistent state of the tenant, and as a stream, one row in memory at a
// time. The system namespace is never read: every scan is the tenant's own
// (storage.TenantAll), and its rows are borrowed (storage.ScanView): the
// export writer copies each row into its buffer, the checksum and the
// file before the next. A tenant the registry holds must be active
// (ErrNotActive otherwise); a scope it does not hold (rows written before
// the registry) is exported all the same, with no name.
//
// On error the file is incomplete, and an import refuses it.
func Export(e storage.Engine, scope storage.TenantScope, w io.Writer, opt Options) (Stats, error) {
	if e == nil {
		return Stats{}, fmt.Errorf("export: %w", storage.ErrNotOpen)
	}
	if scope.IsZero() {
		return Stats{}, fmt.Errorf("export: %w", tenants.ErrNilScope)
	}
	snap, err := e.Snapshot()
	if err != nil {
		return Stats{}, fmt.Errorf("export %s: %w", scope, err)
	}
	defer snap.Close()

	h := Header{Version: exportVersion, Scope: scope, Families: exportFamilies()}
	switch t, err := tenants.Get(snap, scope); {
	case errors.Is(err, tenants.ErrUnknownTenant):
	case err != nil:
		return Stats{}, fmt.Errorf("export %s: %w", scope, err)
	case t.State != tenants.Active:
		return Stats{}, fmt.Errorf("export %s: tenant %s: %w", scope, t.State, ErrNotActive)
	default:
		h.Name = t.Name
	}

	x, err := newExportWriter(w, h)
	if err != nil {
		return Stats{}, fmt.Errorf("export %s: %w", scope, err)
	}
	tick := opt.ticker("export")
	for i, cf := range h.Families {
		for kv, err := range storage.ScanView(snap, storage.TenantAll(scope, cf)) {
			if err != nil {
				return Stats{}, fmt.Errorf("export %s: scan %s: %w", scope, cf, err)
			}
			if err := x.row(i, kv); err != nil {
				return Stats{}, fmt.Errorf("export %s: %w", scope, err)
			}
			tick.row(x.n)
		}
	}
	if err := x.finish(); err != nil {
		return Stats{}, fmt.Errorf("export %s: %w", scope, err)
	}
	tick.done(x.n)
	return Stats{Families: h.Families, Rows: x.rows, Bytes: x.n}, nil
}
