package vector

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system"
)

// Model is one version of a registered embedding model.
type Model = system.Model

// Metric is a model's similarity measure.
type Metric = system.Metric

// The metrics. Distances are "lower is nearer" for all three.
const (
	Cosine = system.MetricCosine // 1 - cos(a, b)
	Dot    = system.MetricDot    // -(a · b)
	L2     = system.MetricL2     // ‖a - b‖
)

// ParseMetric returns the metric named "cosine", "dot" or "l2".
func ParseMetric(name string) (Metric, error) { return system.ParseMetric(name) }

// RegisterModel registers a deployment-global model, or returns the
// existing one if the definition is the same. A different definition fails
// with system.ErrModelConflict: use RedefineModel deliberately.
func (s *Store) RegisterModel(name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return system.RegisterModel(s.eng, name, dimension, metric, tx)
}

// RedefineModel appends a new version of a model from tx on.
func (s *Store) RedefineModel(name string, dimension int, metric Metric, tx storage.Timestamp) (Model, error) {
	return system.RedefineModel(s.eng, name, dimension, metric, tx)
}

// Model returns the latest version of a model.
func (s *Store) Model(name string) (Model, error) { return system.LookupModel(s.eng, name) }

// ModelAsOf returns the version of a model current at tx time tx.
func (s *Store) ModelAsOf(name string, tx storage.Timestamp) (Model, error) {
	return system.LookupModelAsOf(s.eng, name, tx)
}

// ModelHistory returns every version of a model, latest first.
func (s *Store) ModelHistory(name string) ([]Model, error) { return system.ModelHistory(s.eng, name) }

// Models returns the latest version of every registered model.
func (s *Store) Models() ([]Model, error) { return system.ListModels(s.eng) }
