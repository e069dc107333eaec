package vector

import (
	"errors"

	"telha.dev/core/storage/system/models"
)

// Errors of the package. Functions wrap them with context; test with
// errors.Is.
var (
	// ErrUnknownModel reports a model name that is not registered at the
	// relevant transaction time.
	ErrUnknownModel = models.ErrUnknownModel

	// ErrModelInUse reports a redefinition that would change the dimension
	// of a model that tenants hold vectors of; register a new model name.
	ErrModelInUse = models.ErrModelInUse

	// ErrDimensionMismatch reports a vector whose length differs from its
	// model's dimension.
	ErrDimensionMismatch = errors.New("vector dimension does not match the model")

	// ErrInvalidVector reports a vector with a NaN or infinite component, or
	// an all-zero vector under the cosine metric, which has no direction.
	ErrInvalidVector = errors.New("invalid vector")

	// ErrNotFound reports a (node, model) with no visible vector at the
	// asked time.
	ErrNotFound = errors.New("vector not found")

	// ErrBadValue reports a stored vector value that does not decode.
	ErrBadValue = errors.New("bad vector value")

	// ErrInvalidQuery reports a search with k < 1 or an invalid scope.
	ErrInvalidQuery = errors.New("invalid vector query")
)
