// Package api implements the tenant API's services (package telha.v1 in
// proto/) over the subsystems' stores. It serves requests, so every scope
// it uses is the principal's (auth.From): no request field names a
// tenant, and telhavet's scopesource rule reports any scope this package
// would make.
//
// Bad input is invalid_argument, a request beyond a limit (Limits)
// resource_exhausted, a read that finds nothing not_found, a job lease
// that no longer holds or a document redacted away failed_precondition,
// a trace recorded twice already_exists (the table codes in errors.go);
// an engine failure is internal, with a message that names no row.
package api
