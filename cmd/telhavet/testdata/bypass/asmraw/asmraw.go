// Package asmraw reaches a binding and the authority from assembly.
package asmraw

import "telha.dev/core/storage"

// readOptions is implemented in asmraw_amd64.s.
func readOptions() uintptr

// poke writes into a key from assembly.
func poke(k *storage.Key, b byte) // bypass

// Use keeps them.
var Use = []any{readOptions, poke}
