// Package bypass is the root package of the fixture's module: it is clean,
// its external tests are not, and go vet names them telha.dev/bypass_test,
// which the pattern telha.dev/bypass/... does not match.
package bypass

// Answer is clean.
func Answer() int { return 42 }
