// Package vector stores embeddings per (tenant, node, model) with valid and
// transaction time, and answers exact k-nearest-neighbour queries as of a
// time within one tenant and one model.
//
// Models are deployment-global and live in the registry of
// telha.dev/core/storage/system/models; this package re-exports its types
// so that callers need one import. Every key and range comes from the typed
// constructors of telha.dev/core/storage: a tenant's search can only ever
// see its own rows.
//
// As-of rule. A vector version is written at (valid start, tx start) and
// lasts until the next version of the same (node, model). Read as of
// (valid V, tx T), the visible version is the one with the latest valid
// start at or before V, among versions with tx start at or before T; on a
// tie of valid start, the latest tx start wins (a correction). A tombstone
// version hides the vector from its valid start on.
package vector
