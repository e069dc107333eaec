// Package viatestdata imports packages that ./... skips.
package viatestdata

import (
	"telha.dev/bypass/_private/sweep"
	"telha.dev/bypass/testdata/rawkeys"
	"telha.dev/core/storage"
)

// Use calls them.
func Use(e storage.Engine) error {
	r, err := rawkeys.Bounds(nil, nil)
	if err != nil {
		return err
	}
	for range e.Scan(r) {
	}
	for range e.Scan(sweep.Jobs()) {
	}
	return nil
}
