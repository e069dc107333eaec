// Package nilconv checks interface satisfaction with typed nils. Near
// misses: nothing here is reported.
package nilconv

import (
	"fmt"

	"telha.dev/core/storage"
)

var (
	_ fmt.Stringer = (*storage.Key)(nil)
	_ fmt.Stringer = (*storage.ScanRange)(nil)
	_ fmt.Stringer = (*storage.TenantScope)(nil)
)
