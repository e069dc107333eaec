// Package models is the narrow facade of the deployment-global
// embedding-model registry, which lives in the reserved system namespace
// (the all-zero scope). It exists for telha.dev/vector alone.
//
// No entry point hands out a scope, a key or a range, so code outside the
// authority tree never names storage.SystemScope and telhavet can forbid it
// there without exemptions.
//
//telha:facade for=telha.dev/vector
package models
