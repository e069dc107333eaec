// Package auth turns a request's credential into a principal: the one
// package of the server that holds a tenant scope it did not get from a
// principal, because it makes principals (authority.conf grants it the
// capability "scope"; scopesource reports a scope made anywhere else in
// the packages that serve requests).
//
// Every request carries "Authorization: Bearer TOKEN" (gRPC sends it as
// the metadata "authorization", which is the same HTTP/2 header). A
// missing, malformed, unknown, revoked or expired token, and a token of a
// tenant that is not active, get one answer, unauthenticated (HTTP 401),
// with one message; why is logged for the operator, with the key id and
// never the token. The Connect interceptor guards the RPCs, the HTTP
// middleware the MCP endpoint; both check the token on every request, so
// a revocation or an erasure holds from the next request on.
package auth
