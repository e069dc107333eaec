//go:build !unix

package storagetest

import "errors"

// hugeValue needs an anonymous mapping, which this system does not offer
// the same way; the tests that use it say so and skip that case.
func hugeValue() (value []byte, release func(), err error) {
	return nil, nil, errors.New("no anonymous mappings on this system")
}
