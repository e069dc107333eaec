package temporal

import (
	"bytes"
	"fmt"
	"math"
)

// ValueKind is the type of one property value. Its numbers are stored in
// the value format, so they never change.
type ValueKind uint8

// The property value kinds.
const (
	KindString ValueKind = 1
	KindInt    ValueKind = 2
	KindFloat  ValueKind = 3
	KindBool   ValueKind = 4
	KindBytes  ValueKind = 5
)

func (k ValueKind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindInt:
		return "int64"
	case KindFloat:
		return "float64"
	case KindBool:
		return "bool"
	case KindBytes:
		return "bytes"
	}
	return fmt.Sprintf("ValueKind(%d)", uint8(k))
}

// Value is one typed property value. Only the field named by Kind is
// meaningful; build values with String, Int, Float, Bool and Bytes.
type Value struct {
	Kind  ValueKind
	Str   string
	Int   int64
	Float float64
	Bool  bool
	Bytes []byte
}

// String returns a string value.
func String(v string) Value { return Value{Kind: KindString, Str: v} }

// Int returns an int64 value.
func Int(v int64) Value { return Value{Kind: KindInt, Int: v} }

// Float returns a float64 value.
func Float(v float64) Value { return Value{Kind: KindFloat, Float: v} }

// Bool returns a bool value.
func Bool(v bool) Value { return Value{Kind: KindBool, Bool: v} }

// Bytes returns a bytes value holding a copy of v.
func Bytes(v []byte) Value { return Value{Kind: KindBytes, Bytes: bytes.Clone(v)} }

// Equal reports whether v and w have the same kind and value. Floats compare
// by bits, so a stored NaN equals itself after a round trip.
func (v Value) Equal(w Value) bool {
	if v.Kind != w.Kind {
		return false
	}
	switch v.Kind {
	case KindString:
		return v.Str == w.Str
	case KindInt:
		return v.Int == w.Int
	case KindFloat:
		return math.Float64bits(v.Float) == math.Float64bits(w.Float)
	case KindBool:
		return v.Bool == w.Bool
	case KindBytes:
		return bytes.Equal(v.Bytes, w.Bytes)
	}
	return true
}

// GoString renders the value for test failures.
func (v Value) GoString() string {
	switch v.Kind {
	case KindString:
		return fmt.Sprintf("String(%q)", v.Str)
	case KindInt:
		return fmt.Sprintf("Int(%d)", v.Int)
	case KindFloat:
		return fmt.Sprintf("Float(%g)", v.Float)
	case KindBool:
		return fmt.Sprintf("Bool(%t)", v.Bool)
	case KindBytes:
		return fmt.Sprintf("Bytes(%x)", v.Bytes)
	}
	return v.Kind.String()
}

// Properties is a node's or edge's property map.
type Properties map[string]Value

// Equal reports whether p and q hold the same names and values; nil and
// empty maps are equal.
func (p Properties) Equal(q Properties) bool {
	if len(p) != len(q) {
		return false
	}
	for name, v := range p {
		w, ok := q[name]
		if !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}
