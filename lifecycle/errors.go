package lifecycle

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// Errors of the lifecycle's provisioning, export and import. Functions
// wrap them with context; the registry's own errors (tenants.ErrExists,
// tenants.ErrUnknownTenant, ...) pass through wrapped.
var (
	// ErrBadScope reports a TENANT:ORG argument that is not two UUIDs, or
	// a name the registry does not hold.
	ErrBadScope = errors.New("bad tenant scope")

	// ErrNotActive reports an export or import of a tenant that is being
	// erased or was erased.
	ErrNotActive = errors.New("tenant not active")

	// ErrNotWritable reports an entity erasure or a redaction, or any
	// subsystem's write, in a tenant that is being imported or erased, or
	// was erased, also one that began after the write checked its tenant.
	// It is storage.ErrTenantNotWritable.
	ErrNotWritable = storage.ErrTenantNotWritable

	// ErrTargetNotEmpty reports an import into a tenant that holds rows:
	// an import never merges into existing data.
	ErrTargetNotEmpty = errors.New("import target tenant is not empty")

	// ErrNotExport reports a file that does not start with the export
	// magic: not a tenant export at all.
	ErrNotExport = errors.New("not a telha tenant export")

	// ErrVersion reports an export of a format version this build does
	// not read.
	ErrVersion = errors.New("unsupported tenant export version")

	// ErrCorruptFile reports an export whose bytes fail a check: a bad
	// header or frame, rows out of order, counts or checksum that do not
	// match. Nothing is written from such a file.
	ErrCorruptFile = errors.New("corrupt tenant export")

	// ErrTruncated reports an export that ends early. It wraps
	// ErrCorruptFile.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrCorruptFile)

	// ErrForeignRow reports a row of an export that does not belong to
	// the scope its header names: another tenant's, or the system scope's.
	// It wraps ErrCorruptFile.
	ErrForeignRow = fmt.Errorf("%w: row outside the exported scope", ErrCorruptFile)
)

// unknownNameError is a -scope that is neither TENANT:ORG nor a name the
// registry holds: a bad scope and an unknown tenant, said once.
type unknownNameError struct{ name string }

func (e unknownNameError) Error() string {
	return fmt.Sprintf("unknown tenant %q: a tenant is named by TENANT:ORG (two UUIDs) or by its display name", e.name)
}

func (e unknownNameError) Is(target error) bool {
	return target == ErrBadScope || target == ErrUnknownTenant
}
