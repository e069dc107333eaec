package storage

import (
	"github.com/google/uuid"
	"lukechampine.com/blake3"
)

// tenantRecordNamespace keeps tenant record ids apart from every other id
// derived by this package.
const tenantRecordNamespace = "telha/tenant/v1"

// TenantRecordID derives the id of the registry row of tenant scope s:
// blake3("telha/tenant/v1" || tenant id || organization id)[:16]. A scope is
// 32 bytes and a row id 16, so the registry keys by this digest and keeps
// the scope itself in the row's value, where the registry checks it against
// the id on every read. The zero scope has no record id: the nil UUID.
func TenantRecordID(s TenantScope) uuid.UUID {
	if s.IsZero() {
		return uuid.Nil
	}
	var buf [len(tenantRecordNamespace) + ScopeLen]byte
	n := copy(buf[:], tenantRecordNamespace)
	copy(buf[n:], s.p[:])
	sum := blake3.Sum256(buf[:])
	return uuid.UUID(sum[:16])
}

// TenantRecordKey is the registry row of one tenant: the traces shape under
// the system prefix, [nil 32][record id 16], the id from TenantRecordID.
//
//telha:restricted system use the tenant registry in telha.dev/core/storage/system/tenants
func (s SystemScope) TenantRecordKey(record uuid.UUID) (k Key) {
	k.SetTenantRecord(s, record)
	return k
}

// SetTenantRecord sets k to SystemScope.TenantRecordKey(record).
//
//telha:restricted system use the tenant registry in telha.dev/core/storage/system/tenants
func (k *Key) SetTenantRecord(_ SystemScope, record uuid.UUID) {
	k.shrink(TraceKeyLen)
	k.family, k.n = Traces, TraceKeyLen|systemBit
	clear(k.b[0:ScopeLen])
	copy(k.b[32:], record[:])
}

// TenantRecords is every row of the tenant registry.
//
//telha:restricted system use the tenant registry in telha.dev/core/storage/system/tenants
func (s SystemScope) TenantRecords() ScanRange {
	var k Key
	return startSystemPrefix(&k, Traces).prefixRange()
}
