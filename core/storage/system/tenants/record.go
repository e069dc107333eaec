package tenants

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// A registry row is keyed [nil 32][record id 16], the record id derived
// from the scope (storage.TenantRecordID); the value holds the scope
// itself, checked against the key on every read.
//
// Value format, version 1 (big-endian integers):
//
//	[0x01 version][state 1][tenant id 16][organization id 16]
//	[provisioned, Unix ns 8][state changed, Unix ns 8][name length 1][name]
//
// An erased tenant's name is empty: a display name may identify the
// customer whose data was erased, so the erasure drops it and frees it for
// reuse. Every other state has a name that passes CheckName.

// recordVersion is the version byte of the current value format.
const recordVersion = 1

// recordHeaderLen is the fixed part of a value: version, state, scope, two
// times, name length.
const recordHeaderLen = 1 + 1 + storage.ScopeLen + 8 + 8 + 1

// Tenant is one row of the registry.
type Tenant struct {
	Scope       storage.TenantScope
	Name        string // empty once Erased
	State       State
	Provisioned time.Time // when Provision wrote the row
	Changed     time.Time // when State was last set (Provisioned for an active tenant)
}

// encodeRecord renders the version-1 value of t.
func encodeRecord(t Tenant) []byte {
	b := make([]byte, recordHeaderLen, recordHeaderLen+len(t.Name))
	b[0] = recordVersion
	b[1] = uint8(t.State)
	tenant, org := t.Scope.Tenant(), t.Scope.Organization()
	copy(b[2:18], tenant[:])
	copy(b[18:34], org[:])
	binary.BigEndian.PutUint64(b[34:42], uint64(t.Provisioned.UnixNano()))
	binary.BigEndian.PutUint64(b[42:50], uint64(t.Changed.UnixNano()))
	b[50] = uint8(len(t.Name))
	return append(b, t.Name...)
}

// decodeRecord parses a registry value. It never panics; any malformed
// input yields ErrCorrupt.
func decodeRecord(b []byte) (Tenant, error) {
	if len(b) < recordHeaderLen {
		return Tenant{}, fmt.Errorf("%w: %d bytes, want at least %d", ErrCorrupt, len(b), recordHeaderLen)
	}
	if b[0] != recordVersion {
		return Tenant{}, fmt.Errorf("%w: value version %d, want %d", ErrCorrupt, b[0], recordVersion)
	}
	if n := int(b[50]); len(b) != recordHeaderLen+n {
		return Tenant{}, fmt.Errorf("%w: %d bytes, name of %d", ErrCorrupt, len(b), n)
	}
	scope, err := storage.NewTenantScope(uuid.UUID(b[2:18]), uuid.UUID(b[18:34]))
	if err != nil {
		return Tenant{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	t := Tenant{
		Scope:       scope,
		State:       State(b[1]),
		Provisioned: time.Unix(0, int64(binary.BigEndian.Uint64(b[34:42]))).UTC(),
		Changed:     time.Unix(0, int64(binary.BigEndian.Uint64(b[42:50]))).UTC(),
		Name:        string(b[recordHeaderLen:]),
	}
	if err := t.check(); err != nil {
		return Tenant{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return t, nil
}

// check reports whether t is a row the registry could have written: a
// valid state, a name by the rules (none once erased), and no state
// change before the provisioning.
func (t Tenant) check() error {
	switch {
	case !t.State.Valid():
		return fmt.Errorf("tenant %s: %s: %w", t.Scope, t.State, ErrBadTransition)
	case t.State == Erased && t.Name != "":
		return fmt.Errorf("erased tenant %s named %q", t.Scope, t.Name)
	case t.State != Erased:
		if err := CheckName(t.Name); err != nil {
			return err
		}
	}
	if t.Changed.Before(t.Provisioned) {
		return fmt.Errorf("tenant %s changed at %s, before its provisioning at %s", t.Scope, t.Changed, t.Provisioned)
	}
	return nil
}

// decodeRow decodes one registry row and checks that the scope in its
// value derives the record id of its key.
func decodeRow(kv storage.KV) (Tenant, error) {
	p, err := storage.DecodeTrace(kv.Key)
	if err != nil {
		return Tenant{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if !p.Scope.IsSystem() {
		return Tenant{}, fmt.Errorf("%w: row of scope %s", ErrCorrupt, p.Scope)
	}
	t, err := decodeRecord(kv.Value)
	if err != nil {
		return Tenant{}, fmt.Errorf("decode tenant record %s: %w", p.Query, err)
	}
	if id := storage.TenantRecordID(t.Scope); id != p.Query {
		return Tenant{}, fmt.Errorf("decode tenant record %s: scope %s derives record %s: %w", p.Query, t.Scope, id, ErrCorrupt)
	}
	return t, nil
}
