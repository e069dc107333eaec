// Package scopesource defines an Analyzer that reports, in the packages
// that serve requests, every tenant scope made other than from the
// request's credential.
//
// # Analyzer scopesource
//
// scopesource: report tenant scopes made in packages that serve requests, other than from the request's credential
//
// The key authority proves that every key lies inside a scope; whose scope
// a request gets is decided where the request is authenticated. A request
// from outside gets its scope from its credential, never from its body: a
// handler that builds a scope from a field of the request (a tenant id, a
// tenant name looked up in the registry) is exactly the bug by which one
// tenant reads another's rows.
//
// authority.conf names the package trees that serve requests (serves
// lines) and grants the capability "scope" to the one package that turns
// a credential into a principal holding a scope:
//
//	serves telha.dev/server
//	grant telha.dev/server/auth scope turns a verified API token into the principal's one scope
//
// The authority marks the type whose values those packages take only from
// the credential, TenantScope:
//
//	//telha:credential <advice>
//
// In a package of a serves tree that has no grant of "scope", scopesource
// reports every function or method of another package, and every
// package-level variable of another package of func type, that hands out
// a credential type, called or taken as a value, unless that package has
// the grant itself (the authentication package's Principal.Scope): in its
// result, instantiated for a generic one (storage.NewTenantScope,
// lifecycle.ParseScope, lifecycle.Lookup, which returns a record holding
// one, a decoder of keys, As[storage.TenantScope]), through a parameter
// that points to one (FillScope(&s)), or through the parameters of a
// callback (WithScope(func(s storage.TenantScope) error)). It reports
// every type assertion, type switch case or conversion to a type that is
// or holds one (a scope taken out of a context.Context that something
// else stored). "Holds" counts what the
// package can name: a scope in an unexported field of another package's
// type (a subsystem's store keeping its caches) is not one it can take
// out, and not reported; a method that hands it out is. A scope passed in
// as a parameter is the caller's business, and reported there.
package scopesource
