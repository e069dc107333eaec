// Package rawiter defines an Analyzer that reports uses of raw storage
// engine bindings, above all their iterators, outside the key authority.
package rawiter

// Doc is the documentation of the rawiter analyzer.
const Doc = `report raw engine bindings and iterators outside the key authority

Only the key authority (the packages at and below telha.dev/core/storage, set
by -authority) may use a raw storage engine binding (github.com/linxGnu/grocksdb,
set by -bindings). A raw iterator sees every tenant's keys, keeps C memory
alive and crashes the process when closed twice; a scan through it bypasses
the scope that the authority puts on every range.

Outside the authority, rawiter reports:
  - every import of a binding package, renamed, dot or blank;
  - every reference to a declaration of a binding package: its types,
    functions such as NewIterator, NewIteratorCF and NewIterators, method
    calls and method values such as db.NewIterator, fields, and the types
    named in embedded fields, aliases and generic instantiations;
  - every reference to a declaration of another package whose declared type
    carries a binding type, such as a helper function returning an
    *grocksdb.Iterator or an alias of it used in a type assertion, so that
    a binding value is caught even where the binding is never imported;
  - every instantiation of a generic function or type whose constraint is
    satisfied by methods of a binding type.

Use the storage.Engine Scan API with a storage.ScanRange from the key
constructors instead: the engine opens, bounds and closes the iterator.`
