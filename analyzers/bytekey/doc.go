// Package bytekey defines an Analyzer that reports keys, scan ranges and
// scopes built from bytes or without the codec outside the key authority.
package bytekey

// Doc is the documentation of the bytekey analyzer.
const Doc = `report keys and scan ranges built from bytes outside the key authority

Only the key authority (the packages at and below telha.dev/core/storage, set
by -authority) builds keys: its codec puts the scope prefix, the column
family and the order-preserving encodings in place. It marks its opaque
types (Key, ScanRange, TenantScope) and the declarations that take or expose
raw key bytes with a directive as the last line of their doc comment:

	//telha:opaque <advice>
	//telha:restricted rawbytes <advice>

bytekey learns the marks from the source of the authority, as analysis
facts, not from a list of names. Outside the authority, it reports:
  - a composite literal of an opaque type, such as storage.Key{};
  - a conversion to an opaque type or a pointer to one;
  - an unsafe.Pointer conversion to any type that holds an opaque type,
    such as (*storage.Key)(unsafe.Pointer(&buf));
  - a call of reflect.New, NewAt or Zero, or of reflect.Value's Set,
    SetBytes, SetPointer or Convert, on an expression whose type involves an
    opaque type, such as reflect.New(reflect.TypeFor[storage.Key]());
  - a //go:linkname directive that targets a package of the authority;
  - every reference to a rawbytes declaration (such as FromStoredBounds,
    Key.View or ScanRange.Bounds), to a declaration of another package whose
    type carries a rawbytes type, and every instantiation of a generic
    function or type whose constraint is satisfied by a rawbytes method.

The zero value of an opaque type (var k storage.Key) is allowed: engines
reject it. Each message gives the advice of the mark: in general, build keys
and ranges with the constructors of the authority, such as NodeVersionKey,
NodeHistory and NewTenantScope.`
