// Package credentials is the narrow facade of the network server's API
// keys, which live in the reserved system namespace (the all-zero scope).
// It exists for telha.dev/server, which creates, lists, revokes and
// checks them, and for telha.dev/lifecycle, whose tenant erasure deletes
// a tenant's keys in the same durable batch as its rows.
//
// A token is "telha_" followed by the key id (32 hex digits, public: it
// names the key in lists and logs) and "_" and a 32-byte secret from
// crypto/rand (43 characters of unpadded base64url). The store keeps a
// SHA-256 digest of the id and the secret, never the secret; a check
// compares digests in constant time.
//
// A key belongs to exactly one tenant scope, a real one: Create refuses
// the zero scope and any tenant the registry does not hold as active, and
// the row decoder refuses a row whose scope has a nil component, so no row
// can name the system scope. A key of a tenant that is not active (being
// erased, erased, importing, unknown) authenticates nothing.
//
// No entry point hands out a system scope, a key or a range, so code
// outside the authority tree never names storage.SystemScope and telhavet
// can forbid it there without exemptions.
//
//telha:facade for=telha.dev/server,telha.dev/lifecycle
package credentials
