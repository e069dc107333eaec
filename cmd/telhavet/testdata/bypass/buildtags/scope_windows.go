package buildtags

import "telha.dev/core/storage"

// Forge is seen only on Windows.
func Forge() storage.Key {
	return storage.Key{} // bypass
}
