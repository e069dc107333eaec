package vector

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/models"
)

// Model is one version of a registered embedding model.
type Model = models.Model

// Metric is a model's similarity measure.
type Metric = models.Metric

// The metrics. Distances are "lower is nearer" for all three.
const (
	Cosine = models.MetricCosine // 1 - cos(a, b)
	Dot    = models.MetricDot    // -(a · b)
	L2     = models.MetricL2     // ‖a - b‖
)

// ParseMetric returns the metric named "cosine", "dot" or "l2".
func ParseMetric(name string) (Metric, error) { return models.ParseMetric(name) }

// RegisterModel registers a deployment-global model, or returns the
// existing one if the definition is the same. A different definition fails
// with models.ErrModelConflict: use RedefineModel deliberately.
func (s *Store) RegisterModel(name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return registry(s, func(e storage.Engine) (Model, error) { return models.RegisterModel(e, name, dimension, metric, tx) })
}

// RedefineModel appends a new version of a model from tx on. It fails with
// ErrModelInUse if the dimension changes while any tenant holds vectors of
// the model (see the registry's versioning rule); the metric may change.
func (s *Store) RedefineModel(name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return registry(s, func(e storage.Engine) (Model, error) { return models.RedefineModel(e, name, dimension, metric, tx) })
}

// Model returns the latest version of a model.
func (s *Store) Model(name string) (Model, error) {
	return registry(s, func(e storage.Engine) (Model, error) { return models.LookupModel(e, name) })
}

// ModelAsOf returns the version of a model current at tx time tx.
func (s *Store) ModelAsOf(name string, tx storage.Timestamp) (Model, error) {
	return registry(s, func(e storage.Engine) (Model, error) { return models.LookupModelAsOf(e, name, tx) })
}

// ModelHistory returns every version of a model, latest first.
func (s *Store) ModelHistory(name string) ([]Model, error) {
	return registry(s, func(e storage.Engine) ([]Model, error) { return models.ModelHistory(e, name) })
}

// Models returns the latest version of every registered model.
func (s *Store) Models() ([]Model, error) {
	return registry(s, func(e storage.Engine) ([]Model, error) { return models.ListModels(e) })
}

// registry calls fn with the engine of s, unless s is closed. A nil engine
// is passed on: the registry reports it as storage.ErrNotOpen.
func registry[T any](s *Store, fn func(storage.Engine) (T, error)) (T, error) {
	if s.closed.Load() {
		var zero T
		return zero, storage.ErrClosed
	}
	return fn(s.eng)
}
