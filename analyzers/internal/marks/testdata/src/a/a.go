// Package a holds every form of mark that the marks analyzer reads, and
// lines that look like marks but are not.
package a

// Scope is restricted.
//
//telha:restricted system use NewScope
type Scope struct{} // want Scope:`restricted system "use NewScope"`

// Key is opaque and restricted.
//
//telha:opaque use a key constructor
//telha:restricted rawbytes use Bytes
type Key struct { // want Key:`opaque "use a key constructor"; restricted rawbytes "use Bytes"`
	// Raw is a marked field.
	//
	//telha:restricted rawbytes use Bytes
	Raw []byte // want Raw:`restricted rawbytes "use Bytes"`
	n   int
}

// View is a marked method.
//
//telha:restricted rawbytes use Bytes
func (k *Key) View() []byte { return k.Raw } // want View:`restricted rawbytes "use Bytes"`

// FromBytes is a marked function; other directives may follow the mark.
//
//telha:restricted rawbytes use a key constructor
//go:noinline
func FromBytes(b []byte) Key { return Key{Raw: b} } // want FromBytes:`restricted rawbytes "use a key constructor"`

// Engine has a marked interface method.
type Engine interface {
	// ScanAll is restricted with a kind of its own.
	//
	//telha:restricted fullscan use Scan
	ScanAll() // want ScanAll:`restricted fullscan "use Scan"`
	Scan()
}

var (
	// Prefix is marked on its spec.
	//
	//telha:restricted system use a scope
	Prefix, Suffix = 1, 2 // want Prefix:`restricted system "use a scope"` Suffix:`restricted system "use a scope"`

	// Plain is not marked.
	Plain = 3
)

// The group is marked on its doc comment.
//
//telha:restricted system use the facade
const (
	Tenant = "t" // want Tenant:`restricted system "use the facade"`
	Org    = "o" // want Org:`restricted system "use the facade"`
)

// Prose is not marked: the line below is prose, not a directive.
// telha:restricted system use nothing
func Prose() {}

// Bare has a mark without advice; the diagnostics give a generic one.
//
//telha:restricted system
func Bare() {} // want Bare:`restricted system ""`

// Unknown is not marked: the verb is unknown.
//
//telha:frobnicate system use nothing
func Unknown() {}
