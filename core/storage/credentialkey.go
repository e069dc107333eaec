package storage

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// CredentialKey is one version of an API credential of the network
// server: the vectors shape under the system prefix, [nil 32][key id
// 16][format 8][inv valid 8][inv tx 8]. The credentials facade writes a
// version when it creates a key and another when it revokes it, and reads
// the latest; the value names the tenant the key belongs to and holds a
// hash of the token, never the token. The vectors family held no system
// rows before, so no other facade's range reaches a credential, and no
// credential's range reaches another facade's rows.
//
//telha:restricted system use the credentials facade in telha.dev/core/storage/system/credentials
func (s SystemScope) CredentialKey(key uuid.UUID, format uint64, validStart, txStart Timestamp) (k Key) {
	k.SetCredential(s, key, format, validStart, txStart)
	return k
}

// SetCredential sets k to SystemScope.CredentialKey(key, format,
// validStart, txStart).
//
//telha:restricted system use the credentials facade in telha.dev/core/storage/system/credentials
func (k *Key) SetCredential(_ SystemScope, key uuid.UUID, format uint64, validStart, txStart Timestamp) {
	k.shrink(VectorKeyLen)
	k.family, k.n = Vectors, VectorKeyLen|systemBit
	clear(k.b[0:ScopeLen])
	copy(k.b[ScopeLen:], key[:])
	binary.BigEndian.PutUint64(k.b[48:], format)
	binary.BigEndian.PutUint64(k.b[56:], inverted(validStart))
	binary.BigEndian.PutUint64(k.b[64:], inverted(txStart))
}

// Credentials is every version of every credential, in key id order.
//
//telha:restricted system use the credentials facade in telha.dev/core/storage/system/credentials
func (s SystemScope) Credentials() ScanRange {
	var k Key
	return startSystemPrefix(&k, Vectors).prefixRange()
}

// CredentialVersions is every version of one credential.
//
//telha:restricted system use the credentials facade in telha.dev/core/storage/system/credentials
func (s SystemScope) CredentialVersions(key uuid.UUID) ScanRange {
	var k Key
	return startSystemPrefix(&k, Vectors).id(key).prefixRange()
}
