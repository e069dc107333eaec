package models

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"sync"
	"unicode/utf8"

	"telha.dev/core/storage"
)

// This file is the deployment-global embedding-model registry (spec
// changelog v0.4): tx-versioned rows in the schema family under the system
// prefix, [nil 32][model id 8][inv tx 8], model id xxh3("vector_model/"+name).
// A model fixes the dimension and the metric of every vector stored under
// it.
//
// Versioning rule. RegisterModel is idempotent: registering a name again
// with the same dimension and metric returns the existing model and writes
// nothing; with a different dimension or metric it fails with
// ErrModelConflict, because a silent change would make every stored vector
// of the model incomparable with new ones. Changing a model is a deliberate
// act: RedefineModel appends a new tx version, and readers pick the version
// current at their transaction time (LookupModelAsOf).
//
// A model is deployment-global and its vectors belong to tenants, so a
// redefinition may not change the dimension of a model that any tenant
// holds a vector row of (a live vector or a tombstone): their writes and
// searches at the old dimension would fail from then on, and their vectors
// would drop out of every search at the new one. It fails with
// ErrModelInUse instead; a new embedding space gets a new model name. The
// metric may change: every stored vector stays comparable.
//
// Value format, version 1 (big-endian integers):
//
//	[0x01 version][metric 1][dimension 4][name length 2][name bytes]
//
// The name is stored because the key holds only its hash; the registry
// checks ModelIDOf(name) against the key on read, so a hash collision
// between two names fails loud (ErrModelIDCollision) instead of merging.

// Metric is the similarity measure of a model.
type Metric uint8

// The metrics. The zero value is not a metric.
const (
	MetricCosine Metric = 1 // 1 - cos(a, b)
	MetricDot    Metric = 2 // -(a · b)
	MetricL2     Metric = 3 // ‖a - b‖
)

var metricNames = [...]string{MetricCosine: "cosine", MetricDot: "dot", MetricL2: "l2"}

// Valid reports whether m is one of the three metrics.
func (m Metric) Valid() bool { return m >= MetricCosine && m <= MetricL2 }

// String returns "cosine", "dot" or "l2".
func (m Metric) String() string {
	if !m.Valid() {
		return fmt.Sprintf("Metric(%d)", uint8(m))
	}
	return metricNames[m]
}

// ParseMetric returns the metric with the given name.
func ParseMetric(name string) (Metric, error) {
	for m := MetricCosine; m <= MetricL2; m++ {
		if metricNames[m] == name {
			return m, nil
		}
	}
	return 0, fmt.Errorf("parse metric %q: %w", name, ErrInvalidModel)
}

// Limits of a model definition. The name limit keeps the value small; the
// dimension limit keeps one vector value under 256 KiB.
const (
	MaxModelNameLen   = 255
	MaxModelDimension = 65536
)

// modelValueVersion is the version byte of the current value format.
const modelValueVersion = 1

// modelHeaderLen is the fixed part of a value: version, metric, dimension,
// name length.
const modelHeaderLen = 1 + 1 + 4 + 2

// Errors of the registry. Functions wrap them with context.
var (
	// ErrUnknownModel reports a model name that is not registered (at the
	// asked transaction time).
	ErrUnknownModel = errors.New("unknown embedding model")

	// ErrModelConflict reports a registration that would change the
	// dimension or metric of an existing model; use RedefineModel.
	ErrModelConflict = errors.New("embedding model already registered with another definition")

	// ErrInvalidModel reports a bad name, dimension or metric.
	ErrInvalidModel = errors.New("invalid embedding model definition")

	// ErrModelIDCollision reports two names with the same model id.
	ErrModelIDCollision = errors.New("embedding model id collision")

	// ErrStaleTx reports a redefinition whose tx time is not after the
	// latest version's.
	ErrStaleTx = errors.New("tx time not after the latest model version")

	// ErrBadModelValue reports a stored registry value that does not decode.
	ErrBadModelValue = errors.New("bad embedding model value")

	// ErrModelInUse reports a redefinition that would change the dimension
	// of a model that tenants hold vectors of.
	ErrModelInUse = errors.New("embedding model has stored vectors")
)

// Model is one version of a registered embedding model.
type Model struct {
	Name      string
	ID        storage.ModelID
	Dimension int
	Metric    Metric
	TxStart   storage.Timestamp // when this version was registered
}

// Check reports whether m is a definition the registry could have handed
// out: a valid name, dimension and metric, and the id of its name. Writers
// that take a Model from their caller check it before storing a vector
// under it.
func (m Model) Check() error {
	if err := validateModel(m.Name, m.Dimension, m.Metric); err != nil {
		return err
	}
	if m.ID != storage.ModelIDOf(m.Name) {
		return fmt.Errorf("model %q with id %d, not its name's: %w", m.Name, m.ID, ErrInvalidModel)
	}
	return nil
}

// sameDefinition reports whether m and o fix the same vectors.
func (m Model) sameDefinition(o Model) bool {
	return m.Dimension == o.Dimension && m.Metric == o.Metric
}

// registryMu serializes the read-check-write of RegisterModel and
// RedefineModel within the process, and keeps vector writes (Pin) from
// running between a redefinition's check for vectors and its write.
// Across processes (replicas on one etcd cluster), each model's
// registrations are fenced by a counter of the deployment
// (storage.CounterModel, the model id its id): a registration reads it
// before the model's versions and advances it in the batch that writes
// the new version, on the condition that it still holds what was read, so
// that of two processes registering one name at once, or redefining it,
// one lands and the other decides again from what the first wrote. A
// vector write of another process that races a redefinition changing the
// dimension may still land under the new definition: searches at the new
// dimension pass over it, as over any row written under an earlier
// definition.
var registryMu sync.RWMutex

// Pin calls fn with the version of model name current at tx time tx, and
// keeps every registration and redefinition waiting until fn returns: a
// vector write runs inside Pin from the lookup of its model to the write of
// its row, so that no redefinition can change the model's dimension in
// between. fn must not register or redefine a model.
func Pin(r storage.Reader, name string, tx storage.Timestamp, fn func(Model) error) error {
	registryMu.RLock()
	defer registryMu.RUnlock()
	m, err := LookupModelAsOf(r, name, tx)
	if err != nil {
		return err
	}
	return fn(m)
}

func validateModel(name string, dimension int, metric Metric) error {
	switch {
	case name == "" || len(name) > MaxModelNameLen || !utf8.ValidString(name):
		return fmt.Errorf("model name %q: want 1..%d bytes of UTF-8: %w", name, MaxModelNameLen, ErrInvalidModel)
	case dimension < 1 || dimension > MaxModelDimension:
		return fmt.Errorf("model %q: dimension %d outside 1..%d: %w", name, dimension, MaxModelDimension, ErrInvalidModel)
	case !metric.Valid():
		return fmt.Errorf("model %q: %s: %w", name, metric, ErrInvalidModel)
	}
	return nil
}

// RegisterModel registers a model, or returns the existing one if name is
// already registered with the same dimension and metric. A different
// definition fails with ErrModelConflict.
func RegisterModel(e storage.Engine, name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return writeModel(e, name, dimension, metric, tx, false)
}

// RedefineModel appends a new version of a registered model with a new
// dimension or metric, valid from tx on; tx must be after the latest
// version's. Redefining with the current definition is a no-op that returns
// the current version. Vectors stored under the earlier definition stay
// readable as of their own time; a search as of a later time skips vectors
// whose dimension no longer matches.
func RedefineModel(e storage.Engine, name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return writeModel(e, name, dimension, metric, tx, true)
}

func writeModel(e storage.Engine, name string, dimension int, metric Metric, tx storage.Timestamp, redefine bool) (Model, error) {
	if e == nil {
		return Model{}, fmt.Errorf("register model %q: %w", name, storage.ErrNotOpen)
	}
	if err := validateModel(name, dimension, metric); err != nil {
		return Model{}, err
	}
	m := Model{Name: name, ID: storage.ModelIDOf(name), Dimension: dimension, Metric: metric, TxStart: tx}

	registryMu.Lock()
	defer registryMu.Unlock()
	read := func(r storage.Reader) ([]storage.Counter, error) {
		c, err := storage.SystemScope{}.ReadCounter(r, storage.CounterModel, uint64(m.ID))
		return []storage.Counter{c}, err
	}
	var existing *Model // the registered model that the call returns, writing nothing
	_, err := storage.WriteCounted(e, true, read, func(b *storage.Batch) error {
		existing = nil
		latest, err := LookupModel(e, name)
		switch {
		case errors.Is(err, ErrUnknownModel):
			if redefine {
				return err
			}
		case err != nil:
			return err
		case latest.sameDefinition(m):
			existing = &latest
			return errSame
		case !redefine:
			return fmt.Errorf("as %s/%d: registered as %s/%d since %s: %w",
				metric, dimension, latest.Metric, latest.Dimension, latest.TxStart, ErrModelConflict)
		case tx <= latest.TxStart:
			return fmt.Errorf("at %s: latest version at %s: %w", tx, latest.TxStart, ErrStaleTx)
		case dimension != latest.Dimension:
			if err := checkUnused(e, latest); err != nil {
				return fmt.Errorf("as dimension %d: %w", dimension, err)
			}
		}
		b.Put(storage.SystemScope{}.VectorModelKey(m.ID, tx), encodeModel(m))
		return nil
	})
	switch {
	case existing != nil:
		return *existing, nil
	case err != nil && redefine:
		return Model{}, fmt.Errorf("redefine model %q: %w", name, err)
	case err != nil:
		return Model{}, fmt.Errorf("register model %q: %w", name, err)
	}
	return m, nil
}

// errSame ends a registration that finds the model registered as asked:
// nothing is written.
var errSame = errors.New("registered as asked")

// checkUnused returns ErrModelInUse if any vector row of any tenant is
// stored under m. It reads the whole vectors family (a redefinition is
// rare); rows whose keys do not decode belong to no model and are passed
// over.
func checkUnused(r storage.Reader, m Model) error {
	for kv, err := range r.Scan(storage.SystemScope{}.FullFamily(storage.Vectors)) {
		if err != nil {
			return fmt.Errorf("look for vectors of model %q: %w", m.Name, err)
		}
		p, err := storage.DecodeVector(kv.Key)
		if err == nil && p.Model == m.ID {
			return fmt.Errorf("tenant %s holds vectors of dimension %d: %w", p.Scope, m.Dimension, ErrModelInUse)
		}
	}
	return nil
}

// LookupModel returns the latest version of a model, or ErrUnknownModel.
func LookupModel(r storage.Reader, name string) (Model, error) {
	return LookupModelAsOf(r, name, storage.MaxTimestamp)
}

// LookupModelAsOf returns the version of a model current at tx time tx:
// the latest version registered at or before tx.
func LookupModelAsOf(r storage.Reader, name string, tx storage.Timestamp) (Model, error) {
	for m, err := range versions(r, name) {
		if err != nil {
			return Model{}, fmt.Errorf("look up model %q: %w", name, err)
		}
		if m.TxStart <= tx {
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("look up model %q as of %s: %w", name, tx, ErrUnknownModel)
}

// ModelHistory returns every version of a model, latest first, or
// ErrUnknownModel if it has none.
func ModelHistory(r storage.Reader, name string) ([]Model, error) {
	var out []Model
	for m, err := range versions(r, name) {
		if err != nil {
			return nil, fmt.Errorf("model history %q: %w", name, err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("model history %q: %w", name, ErrUnknownModel)
	}
	return out, nil
}

// versions yields the versions of one model, latest first, and stops at
// the first error. A row holding another name is a hash collision.
func versions(r storage.Reader, name string) iter.Seq2[Model, error] {
	return func(yield func(Model, error) bool) {
		if r == nil {
			yield(Model{}, storage.ErrNotOpen)
			return
		}
		id := storage.ModelIDOf(name)
		for kv, err := range r.Scan(storage.SystemScope{}.VectorModelHistory(id)) {
			var m Model
			if err == nil {
				m, err = decodeModelRow(kv)
			}
			if err == nil && m.Name != name {
				err = fmt.Errorf("id %d holds %q: %w", id, m.Name, ErrModelIDCollision)
			}
			if err != nil {
				yield(Model{}, err)
				return
			}
			if !yield(m, nil) {
				return
			}
		}
	}
}

// ListModels returns the latest version of every registered model, in
// model id order.
func ListModels(r storage.Reader) ([]Model, error) {
	if r == nil {
		return nil, fmt.Errorf("list models: %w", storage.ErrNotOpen)
	}
	var out []Model
	for kv, err := range r.Scan(storage.SystemScope{}.VectorModels()) {
		if err != nil {
			return nil, fmt.Errorf("list models: %w", err)
		}
		m, err := decodeModelRow(kv)
		if err != nil {
			return nil, err
		}
		// Rows of one model are adjacent and latest first.
		if len(out) > 0 && out[len(out)-1].ID == m.ID {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// decodeModelRow decodes one registry row and checks that its name hashes
// to the id in its key.
func decodeModelRow(kv storage.KV) (Model, error) {
	parts, err := storage.DecodeSchema(kv.Key)
	if err != nil {
		return Model{}, fmt.Errorf("decode model row: %w", err)
	}
	m, err := decodeModel(kv.Value)
	if err != nil {
		return Model{}, fmt.Errorf("decode model row %d: %w", parts.Hash, err)
	}
	m.ID = storage.ModelID(parts.Hash)
	m.TxStart = parts.TxStart
	if storage.ModelIDOf(m.Name) != m.ID {
		return Model{}, fmt.Errorf("decode model row %d: name %q hashes elsewhere: %w", parts.Hash, m.Name, ErrModelIDCollision)
	}
	return m, nil
}

// encodeModel renders the version-1 value of m.
func encodeModel(m Model) []byte {
	b := make([]byte, modelHeaderLen, modelHeaderLen+len(m.Name))
	b[0] = modelValueVersion
	b[1] = uint8(m.Metric)
	binary.BigEndian.PutUint32(b[2:6], uint32(m.Dimension))
	binary.BigEndian.PutUint16(b[6:8], uint16(len(m.Name)))
	return append(b, m.Name...)
}

// decodeModel parses a registry value. It never panics; any malformed input
// yields ErrBadModelValue. ID and TxStart come from the key and are left
// zero.
func decodeModel(b []byte) (Model, error) {
	if len(b) < modelHeaderLen {
		return Model{}, fmt.Errorf("%w: %d bytes, want at least %d", ErrBadModelValue, len(b), modelHeaderLen)
	}
	if b[0] != modelValueVersion {
		return Model{}, fmt.Errorf("%w: version %d", ErrBadModelValue, b[0])
	}
	n := int(binary.BigEndian.Uint16(b[6:8]))
	if len(b) != modelHeaderLen+n {
		return Model{}, fmt.Errorf("%w: %d bytes, name of %d", ErrBadModelValue, len(b), n)
	}
	name := string(b[modelHeaderLen:])
	dim := binary.BigEndian.Uint32(b[2:6])
	if err := validateModel(name, int(min(dim, MaxModelDimension+1)), Metric(b[1])); err != nil {
		return Model{}, fmt.Errorf("%w: %w", ErrBadModelValue, err)
	}
	return Model{Name: name, Dimension: int(dim), Metric: Metric(b[1])}, nil
}
