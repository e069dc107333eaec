package storage

import "github.com/google/uuid"

// DeploymentSecretKey is one version of a deployment secret, such as the
// key of the erased-content blocklist's digests: the edge_versions shape
// under the system prefix, [nil 32][secret id 16][inv valid 8][inv tx 8].
// Every family that held system rows before gives its whole system prefix
// to the scan of one facade (the model registry, the erasure ledger, the
// tenant registry, the job queue); edge_versions held none, so no other
// facade's range reaches a secret, and no secret's range reaches their
// rows.
//
//telha:restricted system use the blocklist digests in telha.dev/core/storage/system/blocklist
func (s SystemScope) DeploymentSecretKey(secret uuid.UUID, validStart, txStart Timestamp) (k Key) {
	k.SetDeploymentSecret(s, secret, validStart, txStart)
	return k
}

// SetDeploymentSecret sets k to SystemScope.DeploymentSecretKey(secret,
// validStart, txStart).
//
//telha:restricted system use the blocklist digests in telha.dev/core/storage/system/blocklist
func (k *Key) SetDeploymentSecret(_ SystemScope, secret uuid.UUID, validStart, txStart Timestamp) {
	k.setVersion(EdgeVersions, &TenantScope{}, &secret, validStart, txStart)
	k.n |= systemBit
}

// DeploymentSecretVersions is every version of one deployment secret,
// latest first.
//
//telha:restricted system use the blocklist digests in telha.dev/core/storage/system/blocklist
func (s SystemScope) DeploymentSecretVersions(secret uuid.UUID) ScanRange {
	var k Key
	return startSystemPrefix(&k, EdgeVersions).id(secret).prefixRange()
}

// CounterKey is one counter that the processes sharing a store agree on
// with conditional batches (counter.go): the spans shape under the system
// prefix, [nil 32][owner 16][counter 8][id 8]. The owner of a tenant's
// counter is its TenantRecordID; of a deployment-wide one, the nil UUID.
// The spans family held no system rows before, so no facade's range
// reaches a counter. name is never math.MaxUint64: those bytes mark the
// spans family's fact shape, and the key is refused (invalid).
//
//telha:restricted system use the counters of counter.go (ReadTxClock, ReadGeneration, ...) or a facade
func (s SystemScope) CounterKey(owner uuid.UUID, name CounterName, id uint64) (k Key) {
	k.SetCounter(s, owner, name, id)
	return k
}

// SetCounter sets k to SystemScope.CounterKey(owner, name, id).
//
//telha:restricted system use the counters of counter.go (ReadTxClock, ReadGeneration, ...) or a facade
func (k *Key) SetCounter(_ SystemScope, owner uuid.UUID, name CounterName, id uint64) {
	k.setSpan(&TenantScope{}, &owner, uint64(name), id)
	k.n |= systemBit
}
