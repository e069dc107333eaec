// Package asmraw writes into keys from assembly. Assembly cannot name a
// symbol of a package whose import path holds a dot, so it needs a Go
// declaration without a body, whose signature gives it away.
package asmraw

import "telha.dev/core/storage"

// readOptions is implemented in asmraw_amd64.s, without the authority's
// types: a capability all the same.
func readOptions() uintptr // bypass

// poke writes into a key from assembly.
func poke(k *storage.Key, b byte) // bypass

// pokeAny writes into whatever its caller hands it: a key, as any.
func pokeAny(p any, off int, b byte) // bypass

// Use keeps them.
var Use = []any{readOptions, poke, pokeAny}
