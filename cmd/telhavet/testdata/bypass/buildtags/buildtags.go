// Package buildtags hides violations behind build constraints.
package buildtags

import "telha.dev/core/storage"

// Family is clean.
func Family() storage.ColumnFamily { return storage.Jobs }
