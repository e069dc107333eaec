// Package blocklist is the narrow facade of the deployment's blocklist
// secret, which lives in the reserved system namespace (the all-zero
// scope). It exists for telha.dev/sources alone, which blocklists the
// content it redacts or deletes by a keyed digest: keyed blake3 under this
// secret, so that a blocklist row (in the tenant's own scope, carried by
// its export) names erased content without letting anyone who reads the
// row test a guess against it offline.
//
// The secret is 32 bytes from crypto/rand, created on first use (Open) and
// written durably before any digest under it is handed out. No entry point
// returns it, and the values that hold it (Keyer, Hasher) print as
// "withheld" whatever the verb. Only digests leave the package.
//
// A secret row is one version of the secret (storage.SystemScope
// DeploymentSecretKey, the edge_versions shape under the system prefix);
// readers take the earliest version, so the first one written wins.
// Inside one process the first use is serialised. Two processes that
// share an etcd cluster and both find no secret at once each write one;
// from then on every reader takes the earlier, but digests that the later
// one handed out before it read again are under a secret nobody uses: the
// engines have no create-if-absent to close that window, so open the
// blocklist once (any source ingest does) before starting a second
// process on an empty cluster.
//
// No entry point hands out a system scope, a key or a range, so code
// outside the authority tree never names storage.SystemScope and telhavet
// can forbid it there without exemptions.
//
//telha:facade for=telha.dev/sources
package blocklist
