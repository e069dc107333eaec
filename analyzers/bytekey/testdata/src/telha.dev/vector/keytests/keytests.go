// Package keytests has clean code and tests that build keys from bytes.
package keytests

// Answer is clean.
func Answer() int { return 42 }
