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
