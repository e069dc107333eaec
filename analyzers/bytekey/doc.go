// Package bytekey defines an Analyzer that reports keys, scan ranges and
// scopes built from bytes or without the codec outside the key authority,
// and every way around the type system into the authority: reflect,
// unsafe, //go:linkname and assembly.
//
// # Analyzer bytekey
//
// bytekey: report keys and scan ranges built from bytes, and reflect, unsafe and linkname on the key authority, outside it
//
// Only the key authority (the package trees of authority.conf) builds keys:
// its codec puts the scope prefix, the column family and the
// order-preserving encodings in place. It marks its opaque types (Key,
// ScanRange, TenantScope) and the declarations that take or expose raw key
// bytes with a directive as the last line of their doc comment:
//
//	//telha:opaque <advice>
//	//telha:restricted rawbytes <advice>
//
// bytekey learns the marks from the source of the authority, as analysis
// facts, not from a list of names. Outside the authority, it reports:
//   - a composite literal of an opaque type, such as storage.Key{};
//   - a conversion to an opaque type or a pointer to one (not of untyped
//     nil, as in var _ fmt.Stringer = (*storage.Key)(nil));
//   - every reference to a rawbytes declaration (such as FromStoredBounds,
//     Key.View or ScanRange.Bounds), to a declaration of another package
//     whose type carries a rawbytes type, and every instantiation of a
//     generic function or type whose constraint is satisfied by a rawbytes
//     method;
//   - an interface method with the name and signature of a rawbytes
//     method, a value converted to an interface through which it reaches
//     one, and a type assertion to such an interface;
//   - reflect on a type of the authority: a call of reflect.ValueOf or
//     reflect.TypeOf with a value whose type is or holds one (looking
//     through the types of other packages, pointers, slices, arrays,
//     fields and type arguments), also when the value was stored in an
//     interface variable first, and reflect.TypeFor with such a type;
//   - unsafe on a type of the authority: a conversion to unsafe.Pointer of
//     a value whose type is or holds one (the source), and a conversion
//     from unsafe.Pointer to a type that is or holds one (the
//     destination);
//   - a call that passes such a value, or instantiates a type parameter
//     with such a type, to a function that passes it on to reflect or
//     unsafe, as a generic helper does: learned as a fact about the
//     function, in any package outside the standard library;
//   - a //go:linkname directive that names a declaration of the
//     authority, and a function declared without a body (implemented in
//     assembly or by //go:linkname) whose signature holds a type of the
//     authority: Go assembly cannot name a symbol of the authority (an
//     import path with a dot), so it reaches the authority only through
//     such a declaration;
//   - in every package, whether it imports the authority or not (a
//     granted kernel package does not, its callers do), a function
//     declared without a body whose signature holds a type that carries
//     values it does not name: an interface, a type parameter,
//     unsafe.Pointer, uintptr or a func. An any holding a *storage.Key
//     is, to assembly, a pointer to the key's bytes; a kernel takes
//     numbers, and slices, arrays and structs of them.
//
// The zero value of an opaque type (var k storage.Key) is allowed: engines
// reject it. The standard library's own reflection (fmt.Println(key),
// encoding/json) is not reported: it reads values and never hands out
// their unexported fields or methods. Each message gives the advice of the
// mark: in general, build keys and ranges with the constructors of the
// authority, such as NodeVersionKey, NodeHistory and NewTenantScope.
package bytekey
