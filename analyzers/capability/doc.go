// Package capability defines an Analyzer that reports, outside the key
// authority, the use of a capability that forges memory or reaches code
// around the type system, unless authority.conf grants it to the package.
//
// # Analyzer capability
//
// capability: report unsafe, reflect's memory operations, linkname, cgo, assembly, plugin and dynamic loading outside the key authority, unless granted
//
// The other Telha rules follow the authority's types and values; a
// capability needs no authority type at the point of harm. A pointer
// moved with unsafe.Add from a neighbouring field, a reflect.Value whose
// origin no analysis can follow (a value out of an atomic.Value), C code
// that finds the engine with dlsym: each can forge a key or reach an
// engine without naming either. So, as Rust crates say
// #![forbid(unsafe_code)] and large Go monorepos allow-list unsafe per
// package, a package outside the authority uses none of these unless
// analyzers/authority/authority.conf grants it, per package and per
// capability, with the reason on the line:
//
//	grant telha.dev/vector/internal/kernel asm AVX2 distance kernels, reviewed with the vector owners
//
// Outside the authority, in the packages of the workspace's modules,
// capability reports, each on the Go line that does it (a finding in a C
// or assembly file goes on the Go line that brings the file in, which
// every driver shows: golangci-lint drops findings in non-Go files), once
// per cause:
//   - unsafe: an import of "unsafe" (a blank import only enables
//     //go:linkname, which is reported itself);
//   - cgo: an import of "C";
//   - linkname: every //go:linkname directive, in any Go file, one that
//     claims to be generated included (only the files cgo writes for a
//     package in its build directory are cgo's own);
//   - asm: the assembly files (.s, .S, .sx) and object files (.syso) that
//     the build compiles: each function declared without a body, which
//     assembly implements, or the package clause if none is declared;
//     each object file, at the package's import "C" or first line;
//   - plugin: an import of "plugin";
//   - dlopen: loading a shared library at run time: a call of dlopen,
//     dlmopen, dlsym or dlvsym in a cgo preamble, in a C file of the
//     package (at its import "C", the lines in the message), or from Go
//     through cgo; an import of github.com/ebitengine/purego; Windows'
//     LoadLibrary, LoadDLL and their kin in syscall and
//     golang.org/x/sys/windows;
//   - reflect: reflect.NewAt, reflect.SliceHeader, reflect.StringHeader,
//     reflect.Value.UnsafePointer and UnsafeAddr, which alias memory;
//     reflect.Value.Bytes and Clear on a value reached through a struct
//     field (Field, FieldByName, FieldByIndex and the like), which alias
//     or write another package's unexported fields, as reflect's other
//     writes refuse to, unless the value started as one of the package's
//     own types holding no other package's struct, and on a value the
//     function got from elsewhere (a parameter, another function's
//     result, a struct field, a channel), which a field lookup one call
//     away may have reached; and a call (Call,
//     CallSlice, or Interface on the method value) of a method that
//     reflect looked up by name or index (Value.Method, MethodByName, the
//     Func of Type.Method and MethodByName), which no analysis can follow
//     to the method it runs.
//
// reflect's other operations (TypeOf, DeepEqual, Set on values it lets
// be set) stay open: reflect refuses at run time to set what the type
// system hides. bytekey still reports reflect and unsafe used on the
// authority's own types, also in a granted package.
//
// A grant that names no package of a module of authority.conf, or an
// unknown capability, or that has no reason, fails every Telha rule at
// once: the configuration does not parse.
package capability
