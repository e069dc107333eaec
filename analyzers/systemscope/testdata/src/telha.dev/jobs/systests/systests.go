// Package systests has clean code and tests that name the system scope.
package systests

// Answer is clean.
func Answer() int { return 42 }
