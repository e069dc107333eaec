package ledger

import (
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
)

// Every entry names the deployment whose store made it (Entry.Deployment),
// so that a restore can tell a ledger of its own deployment from another's.
// A deployment is a store and every copy of it: a checkpoint, and a store
// restored from one, keep the id. The id is a random UUID that the store
// creates on first use and keeps in its system namespace as one of the
// deployment's secret rows (storage.SystemScope DeploymentSecretKey, under
// its own id): it is no secret, but like them it belongs to the deployment
// and leaves the store with no tenant's export. As for the blocklist
// secret, it is created at one fixed version, if absent (a conditional
// batch), so that of several processes' first uses on one store exactly
// one wins and every other reads the winner's; readers take the earliest
// version, so a store written before that rule converges too.

// deploymentRow is the id of the deployment id among the deployment's
// secret rows: blake3("telha/deployment/ledger/v1")[:16].
var deploymentRow = func() uuid.UUID {
	sum := blake3.Sum256([]byte("telha/deployment/ledger/v1"))
	return uuid.UUID(sum[:16])
}()

// A deployment row's value, version 1: [0x01 version][deployment id 16].
const (
	deploymentVersion  = 1
	deploymentValueLen = 1 + 16
)

// firstDeployment serialises the creation of the id inside the process.
var firstDeployment sync.Mutex

// Deployment returns the id of the deployment whose store e is, creating
// it, durably, if the store has none.
func Deployment(e storage.Engine) (uuid.UUID, error) {
	id, ok, err := ReadDeployment(e)
	if ok || err != nil {
		return id, err
	}
	firstDeployment.Lock()
	defer firstDeployment.Unlock()
	if id, ok, err := ReadDeployment(e); ok || err != nil {
		return id, err
	}
	id, err = uuid.NewRandom()
	if err != nil {
		return uuid.Nil, fmt.Errorf("create the deployment id: %w", err)
	}
	key := storage.SystemScope{}.DeploymentSecretKey(deploymentRow, storage.MinTimestamp, storage.MinTimestamp)
	var b storage.Batch
	b.RequireAbsent(key)
	b.Put(key, append([]byte{deploymentVersion}, id[:]...))
	if err := e.WriteDurable(&b); err != nil && !errors.Is(err, storage.ErrConflict) {
		return uuid.Nil, fmt.Errorf("create the deployment id: %w", err)
	}
	// Created, or another process created it first: read what won.
	if id, ok, err = ReadDeployment(e); !ok && err == nil {
		err = fmt.Errorf("the deployment id was written but not read back: %w", ErrBadEntry)
	}
	return id, err
}

// ReadDeployment returns the deployment id of the store r, and false if it
// has none yet. A row that does not decode is ErrBadEntry.
func ReadDeployment(r storage.Reader) (uuid.UUID, bool, error) {
	var earliest uuid.UUID
	var at storage.Timestamp
	found := false
	for kv, err := range r.Scan(storage.SystemScope{}.DeploymentSecretVersions(deploymentRow)) {
		if err != nil {
			return uuid.Nil, false, fmt.Errorf("read the deployment id: %w", err)
		}
		p, err := storage.DecodeEdgeVersion(kv.Key)
		if err != nil {
			return uuid.Nil, false, fmt.Errorf("read the deployment id: %w: %w", ErrBadEntry, err)
		}
		id, err := decodeDeployment(kv.Value)
		if err != nil {
			return uuid.Nil, false, fmt.Errorf("read the deployment id version %s: %w", p.TxStart, err)
		}
		// Ties (two versions in one microsecond) go to the smaller id, so
		// that every reader picks the same one.
		if !found || p.TxStart < at || p.TxStart == at && id.String() < earliest.String() {
			earliest, at, found = id, p.TxStart, true
		}
	}
	return earliest, found, nil
}

// decodeDeployment decodes a deployment row's value.
func decodeDeployment(v []byte) (uuid.UUID, error) {
	switch {
	case len(v) != deploymentValueLen:
		return uuid.Nil, fmt.Errorf("%w: deployment id of %d bytes, want %d", ErrBadEntry, len(v), deploymentValueLen)
	case v[0] != deploymentVersion:
		return uuid.Nil, fmt.Errorf("%w: deployment id version %d, want %d", ErrBadEntry, v[0], deploymentVersion)
	}
	id := uuid.UUID(v[1:])
	if id == uuid.Nil {
		return uuid.Nil, fmt.Errorf("%w: a nil deployment id", ErrBadEntry)
	}
	return id, nil
}

// ErrForeign reports a ledger entry of another deployment than the store
// it is replayed into, or one that names none, or a store that names none.
var ErrForeign = errors.New("erasure ledger entry of another deployment")
