package lifecycle

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// Header is what an export says about itself before its rows.
type Header struct {
	Version  uint16
	Scope    storage.TenantScope // the scope the rows were exported from
	Name     string              // the display name at export, "" if none
	Families []storage.ColumnFamily
}

// appendHeader renders h.
func appendHeader(b []byte, h Header) []byte {
	b = append(b, exportMagic...)
	b = binary.BigEndian.AppendUint16(b, h.Version)
	tenant, org := h.Scope.Tenant(), h.Scope.Organization()
	b = append(b, tenant[:]...)
	b = append(b, org[:]...)
	b = append(b, uint8(len(h.Name)))
	b = append(b, h.Name...)
	b = append(b, uint8(len(h.Families)))
	for _, cf := range h.Families {
		b = append(b, byte(cf))
	}
	return b
}

// readHeader reads and checks a header: the magic, a version this build
// reads, a tenant scope, a name by the registry's rules (or none), and
// exactly the families of the format.
func readHeader(r io.Reader) (Header, error) {
	var fixed [len(exportMagic) + 2 + storage.ScopeLen + 1]byte
	if _, err := io.ReadFull(r, fixed[:len(exportMagic)]); err != nil {
		return Header{}, fmt.Errorf("read export header: %w: %w", ErrNotExport, err)
	}
	if string(fixed[:len(exportMagic)]) != exportMagic {
		return Header{}, fmt.Errorf("read export header: magic %q: %w", fixed[:len(exportMagic)], ErrNotExport)
	}
	if err := readFull(r, fixed[len(exportMagic):]); err != nil {
		return Header{}, fmt.Errorf("read export header: %w", err)
	}
	h := Header{Version: binary.BigEndian.Uint16(fixed[8:10])}
	if h.Version != exportVersion {
		return Header{}, fmt.Errorf("read export header: version %d, this build reads %d: %w", h.Version, exportVersion, ErrVersion)
	}
	scope, err := storage.NewTenantScope(uuid.UUID(fixed[10:26]), uuid.UUID(fixed[26:42]))
	if err != nil {
		return Header{}, fmt.Errorf("read export header: source scope: %w: %w", ErrCorruptFile, err)
	}
	h.Scope = scope
	name := make([]byte, fixed[42])
	if err := readFull(r, name); err != nil {
		return Header{}, fmt.Errorf("read export header: %w", err)
	}
	if h.Name = string(name); h.Name != "" {
		if err := tenants.CheckName(h.Name); err != nil {
			return Header{}, fmt.Errorf("read export header: %w: %w", ErrCorruptFile, err)
		}
	}
	var n [1]byte
	if err := readFull(r, n[:]); err != nil {
		return Header{}, fmt.Errorf("read export header: %w", err)
	}
	fams := make([]byte, n[0])
	if err := readFull(r, fams); err != nil {
		return Header{}, fmt.Errorf("read export header: %w", err)
	}
	for _, b := range fams {
		h.Families = append(h.Families, storage.ColumnFamily(b))
	}
	if want := exportFamilies(); !slices.Equal(h.Families, want) {
		return Header{}, fmt.Errorf("read export header: families %v, want %v: %w", h.Families, want, ErrCorruptFile)
	}
	return h, nil
}

// readFull is io.ReadFull with an early end reported as ErrTruncated.
func readFull(r io.Reader, b []byte) error {
	_, err := io.ReadFull(r, b)
	return truncated(err)
}
