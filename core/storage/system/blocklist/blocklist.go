package blocklist

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
)

// SecretLen is the length of the secret, and of a digest.
const SecretLen = 32

// A secret row's value, version 1:
//
//	[0x01 version][secret 32]
//
// The secret is never all zero: crypto/rand does not produce it, so a
// zero secret is a damaged row.
const (
	valueVersion = 1
	valueLen     = 1 + SecretLen
)

// secretID is the id of the blocklist secret among the deployment's
// secrets: blake3("telha/secret/blocklist/v1")[:16].
var secretID = func() uuid.UUID {
	sum := blake3.Sum256([]byte("telha/secret/blocklist/v1"))
	return uuid.UUID(sum[:16])
}()

// Errors of the facade. Functions wrap them with context.
var (
	// ErrCorrupt reports a secret row that does not decode. It wraps
	// storage.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("bad blocklist secret row: %w", storage.ErrCorrupt)
)

// Keyer computes keyed digests under the deployment's blocklist secret.
// It is safe for concurrent use.
type Keyer struct {
	secret [SecretLen]byte
}

// firstUse serialises the creation of the secret inside the process.
var firstUse sync.Mutex

// firstVersion is the valid and transaction time of the secret's version
// that Open creates: one fixed key, so that of several processes creating
// the secret at once (replicas on one etcd cluster) one batch lands
// (created if absent) and the others read the winner's secret, and no
// digest is ever taken under a loser's. It is the earliest time, so that
// readers, which take the earliest version, take it.
const firstVersion = storage.MinTimestamp

// Open returns the Keyer of the deployment whose store e is, creating the
// secret, durably, if the store has none.
func Open(e storage.Engine) (*Keyer, error) {
	if e == nil {
		return nil, fmt.Errorf("open blocklist secret: %w", storage.ErrNotOpen)
	}
	k, err := read(e)
	if k != nil || err != nil {
		return k, err
	}
	firstUse.Lock()
	defer firstUse.Unlock()
	if k, err := read(e); k != nil || err != nil {
		return k, err
	}
	k = &Keyer{}
	if _, err := io.ReadFull(rand.Reader, k.secret[:]); err != nil {
		return nil, fmt.Errorf("create blocklist secret: %w", err)
	}
	key := storage.SystemScope{}.DeploymentSecretKey(secretID, firstVersion, firstVersion)
	var b storage.Batch
	b.RequireAbsent(key)
	b.Put(key, append([]byte{valueVersion}, k.secret[:]...))
	if err := e.WriteDurable(&b); err != nil && !errors.Is(err, storage.ErrConflict) {
		return nil, fmt.Errorf("create blocklist secret: %w", err)
	}
	// Created, or another process created it first: read what won.
	if k, err = read(e); k == nil && err == nil {
		err = fmt.Errorf("blocklist secret written but not read back: %w", ErrCorrupt)
	}
	return k, err
}

// read returns the Keyer of the earliest version of the secret in r, or
// nil and no error if there is none.
func read(r storage.Reader) (*Keyer, error) {
	var earliest *Keyer
	var at storage.Timestamp
	for kv, err := range r.Scan(storage.SystemScope{}.DeploymentSecretVersions(secretID)) {
		if err != nil {
			return nil, fmt.Errorf("read blocklist secret: %w", err)
		}
		p, err := storage.DecodeEdgeVersion(kv.Key)
		if err != nil {
			return nil, fmt.Errorf("read blocklist secret: %w: %w", ErrCorrupt, err)
		}
		k, err := decodeValue(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("read blocklist secret version %s: %w", p.TxStart, err)
		}
		// Ties (two versions written in one microsecond) go to the
		// smaller secret, so that every reader picks the same one.
		if earliest == nil || p.TxStart < at || p.TxStart == at && bytes.Compare(k.secret[:], earliest.secret[:]) < 0 {
			earliest, at = k, p.TxStart
		}
	}
	return earliest, nil
}

// decodeValue decodes a secret row's value.
func decodeValue(v []byte) (*Keyer, error) {
	switch {
	case len(v) != valueLen:
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrCorrupt, len(v), valueLen)
	case v[0] != valueVersion:
		return nil, fmt.Errorf("%w: value version %d, want %d", ErrCorrupt, v[0], valueVersion)
	}
	k := &Keyer{secret: [SecretLen]byte(v[1:])}
	if k.secret == [SecretLen]byte{} {
		return nil, fmt.Errorf("%w: an all-zero secret", ErrCorrupt)
	}
	return k, nil
}

// Digest returns the keyed digest of text: keyed blake3-256 under the
// secret.
func (k *Keyer) Digest(text []byte) [SecretLen]byte {
	h := k.Hasher()
	_, _ = h.Write(text)
	return h.Sum()
}

// Hasher returns a hasher of the keyed digest, for text read in pieces.
func (k *Keyer) Hasher() Hasher { return Hasher{h: blake3.New(SecretLen, k.secret[:])} }

// Format prints no part of the secret, whatever the verb.
func (Keyer) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "blocklist.Keyer(secret withheld)")
}

// Hasher computes one keyed digest. Its zero value is not usable: get one
// from Keyer.Hasher.
type Hasher struct {
	h *blake3.Hasher
}

// Write adds p to the text; it never fails.
func (h Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Sum returns the keyed digest of the text written so far.
func (h Hasher) Sum() (d [SecretLen]byte) {
	h.h.Sum(d[:0])
	return d
}

// Format prints no part of the hasher's state, which holds the secret.
func (Hasher) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "blocklist.Hasher(secret withheld)")
}
