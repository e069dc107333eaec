// Package xtests is clean; its tests are not.
package xtests

// Answer is clean.
func Answer() int { return 42 }
