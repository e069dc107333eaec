// Package rawtests has clean code and tests that use the binding.
package rawtests

// Answer is clean.
func Answer() int { return 42 }
