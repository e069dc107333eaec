package storage

import (
	"github.com/google/uuid"
	"lukechampine.com/blake3"
)

// RedactionChunkIndex is the reserved slot of the sources family
// (docs/design.md, Reserved rows): math.MaxUint64, stored inverted as eight
// zero bytes, so redaction and blocklist rows sort first for their id, and
// no real chunk index or tx time can collide with it.
const RedactionChunkIndex uint64 = 1<<64 - 1

// blocklistNamespace keeps blocklist ids apart from real blob ids, which
// derive from raw canonical hashes.
const blocklistNamespace = "telha/blocklist/v1"

// RedactionRecordKey is the blob redaction record of blob: the sources shape
// at the reserved slot.
func RedactionRecordKey(s TenantScope, blob uuid.UUID) (k Key) {
	k.SetRedactionRecord(s, blob)
	return k
}

// SetRedactionRecord sets k to RedactionRecordKey(s, blob).
func (k *Key) SetRedactionRecord(s TenantScope, blob uuid.UUID) {
	k.setSource(&s, &blob, invert(RedactionChunkIndex))
}

// BlocklistID derives the blocklist row id of a keyed digest:
// blake3("telha/blocklist/v1" || keyedDigest)[:16].
func BlocklistID(keyedDigest []byte) uuid.UUID {
	var id uuid.UUID
	var buf [len(blocklistNamespace) + 64]byte
	if len(keyedDigest) <= 64 {
		n := copy(buf[:], blocklistNamespace)
		n += copy(buf[n:], keyedDigest)
		sum := blake3.Sum256(buf[:n])
		copy(id[:], sum[:16])
		return id
	}
	h := blake3.New(32, nil)
	_, _ = h.Write([]byte(blocklistNamespace))
	_, _ = h.Write(keyedDigest)
	copy(id[:], h.Sum(nil))
	return id
}

// BlocklistKey is the erased-content blocklist row of a keyed digest: the
// sources shape at the reserved slot, under the derived BlocklistID.
func BlocklistKey(s TenantScope, keyedDigest []byte) (k Key) {
	k.SetBlocklist(s, keyedDigest)
	return k
}

// SetBlocklist sets k to BlocklistKey(s, keyedDigest).
func (k *Key) SetBlocklist(s TenantScope, keyedDigest []byte) {
	id := BlocklistID(keyedDigest)
	k.setSource(&s, &id, invert(RedactionChunkIndex))
}

// JobKey is the key of a system job: the jobs layout under the all-zero
// prefix.
//
//telha:restricted system use storage.JobKey with a TenantScope, or the job queue facade in telha.dev/core/storage/system/jobqueue
func (s SystemScope) JobKey(state JobState, priority uint8, created Timestamp, id uuid.UUID) (k Key) {
	k.SetSystemJob(s, state, priority, created, id)
	return k
}

// SetSystemJob sets k to SystemScope.JobKey(state, priority, created, id).
//
//telha:restricted system use Key.SetJob with a TenantScope, or the job queue facade in telha.dev/core/storage/system/jobqueue
func (k *Key) SetSystemJob(_ SystemScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	k.shrink(JobKeyLen)
	clear(k.b[0:ScopeLen])
	k.setJobTail(JobKeyLen|systemBit, state, priority, created, &id)
}

// VectorModelKey is one version of a deployment-global embedding model:
// [nil 32][model id 8][inv tx 8], the schema shape under the system prefix.
//
//telha:restricted system use the model registry in telha.dev/core/storage/system/models
func (s SystemScope) VectorModelKey(model ModelID, txStart Timestamp) (k Key) {
	k.SetVectorModel(s, model, txStart)
	return k
}

// SetVectorModel sets k to SystemScope.VectorModelKey(model, txStart).
//
//telha:restricted system use the model registry in telha.dev/core/storage/system/models
func (k *Key) SetVectorModel(_ SystemScope, model ModelID, txStart Timestamp) {
	k.shrink(SchemaKeyLen)
	k.family, k.n = Schema, SchemaKeyLen|systemBit
	clear(k.b[0:ScopeLen])
	k.setSchemaTail(uint64(model), txStart)
}
