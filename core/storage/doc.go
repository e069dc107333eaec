// Package storage is Telha's key authority: the only code that turns typed
// requests (a tenant scope, logical ids, times) into key bytes and scan bounds.
//
// Tenant isolation is a property of construction here, not of discipline at
// call sites. Every key starts with a 32-byte scope; every ScanRange is bounded
// inside one scope; the all-zero system prefix is produced only by
// SystemScope, which telhavet forbids outside this tree. Key, ScanRange and
// TenantScope are opaque: outside the tree they come only from the
// constructors in this package, and their zero values are invalid and
// rejected by every engine, so a forgotten initialisation can never address
// the system prefix or scan a whole family.
//
// Declarations that take or expose raw key bytes, or that reach the system
// prefix, carry a //telha:restricted mark as the last line of their doc
// comment; the telhavet analyzers learn the restricted surface from those
// marks. Opaque types carry a //telha:opaque mark.
//
// The byte layouts are normative (docs/key-layout.md is generated from this
// package by `telha debug layout`). All keys are fixed-width, big-endian, and
// timestamps that should iterate latest-first are inverted by one function,
// invert (the key setters write it folded with the order-preserving
// encoding, as inverted).
//
// Every key has two constructors: a setter, (*Key).SetNodeVersion, which
// writes into an existing Key and inlines into its caller, for loops that
// build many keys; and a function, NodeVersionKey, which returns a new Key.
package storage
