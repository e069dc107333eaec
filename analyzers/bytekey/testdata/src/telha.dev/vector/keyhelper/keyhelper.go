// Package keyhelper exposes raw key bytes to packages that do not call the
// restricted accessors themselves. It is outside the authority, so it is
// reported too.
package keyhelper

import "telha.dev/core/storage"

// Viewer is satisfied by *storage.Key.
type Viewer interface {
	View() []byte
}

// ViewOf returns the raw bytes of a key through a constraint.
func ViewOf[V Viewer](v V) []byte {
	return v.View()
}

// Bounds returns the raw bounds of a range.
func Bounds(r *storage.ScanRange) ([]byte, []byte) {
	return r.Bounds() // want `storage.ScanRange.Bounds used`
}
