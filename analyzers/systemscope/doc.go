// Package systemscope defines an Analyzer that reports references to the
// system scope and to the other restricted declarations of the key
// authority outside it, and imports of its facades by packages they do not
// exist for.
//
// # Analyzer systemscope
//
// systemscope: report references to the system scope, restricted declarations and foreign facades outside the key authority
//
// The key authority (the package trees of authority.conf) marks the
// declarations that only it may use with a directive as the last line of
// their doc comment:
//
//	//telha:restricted <kind> <advice>
//
// SystemScope, the only producer of the all-zero system prefix, and the keys
// and ranges it builds carry kind "system". systemscope enforces every kind but
// "rawbytes", which bytekey enforces. It learns the marks from the source of
// the authority, as analysis facts, not from a list of names.
//
// Outside the authority, systemscope reports:
//   - every reference to a restricted declaration: a type, function, method
//     call or method value, variable, constant or field, including the types
//     named in embedded fields, aliases and generic instantiations, through
//     renamed and dot imports;
//   - every reference to a declaration of another package whose declared type
//     carries a restricted type, looking through the named types of other
//     packages (a struct that embeds SystemScope, a field of one, a func
//     type, a generic type instantiated with one), so that a system scope is
//     caught even where it is never named;
//   - every instantiation of a generic function or type whose constraint is
//     satisfied by restricted methods of its type argument;
//   - an interface method with the name and signature of a restricted
//     method, a value converted to an interface through which it reaches a
//     restricted method, and a type assertion to such an interface;
//   - an import of a facade of the authority by a package the facade does
//     not exist for.
//
// A facade says whom it exists for at the end of its package doc comment:
//
//	//telha:facade for=telha.dev/jobs
//
// admits, outside the authority, the packages at or below telha.dev/jobs
// whose module is telha.dev/jobs or lies above that path (so a module of
// its own named telha.dev/jobs/x is not admitted), across modules, as Go's
// internal/ directories do within one.
//
//	//telha:facade tests
//
// admits the test files (_test.go) of any package and no other file: the
// authority's helpers for tests (storagetest), which read and write the
// system namespace to prove nothing else did.
//
// A local declaration that merely shares a name, such as a type SystemScope of
// another package, is not reported. Each message gives the advice of the mark:
// in general, use a TenantScope from storage.NewTenantScope, or the facade
// under telha.dev/core/storage/system that exists for your package.
package systemscope
