// Package systemscope defines an Analyzer that reports references to the
// system scope and to the other restricted declarations of the key
// authority outside it.
package systemscope

// Doc is the documentation of the systemscope analyzer.
const Doc = `report references to the system scope and restricted declarations outside the key authority

The key authority (the packages at and below telha.dev/core/storage, set by
-authority) marks the declarations that only it may use with a directive as
the last line of their doc comment:

	//telha:restricted <kind> <advice>

SystemScope, the only producer of the all-zero system prefix, and the keys
and ranges it builds carry kind "system". systemscope enforces every kind but
"rawbytes", which bytekey enforces. It learns the marks from the source of
the authority, as analysis facts, not from a list of names.

Outside the authority, systemscope reports:
  - every reference to a restricted declaration: a type, function, method
    call or method value, variable, constant or field, including the types
    named in embedded fields, aliases and generic instantiations, through
    renamed and dot imports;
  - every reference to a declaration of another package whose declared type
    carries a restricted type, such as a helper returning a SystemScope, so
    that a system scope is caught even where it is never named;
  - every instantiation of a generic function or type whose constraint is
    satisfied by restricted methods of its type argument.

A local declaration that merely shares a name, such as a type SystemScope of
another package, is not reported. Each message gives the advice of the mark:
in general, use a TenantScope from storage.NewTenantScope, or a system
facade under telha.dev/core/storage/system.`
