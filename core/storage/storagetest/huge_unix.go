//go:build unix

package storagetest

import (
	"syscall"

	"telha.dev/core/storage"
)

// hugeValue returns a value one byte longer than storage.MaxValueLen
// without the memory: an anonymous read-only mapping, whose pages read as
// zeros and cost nothing until touched. An engine that refuses it by its
// length never touches it. Like the RocksDB engine it tests, storagetest
// builds on unix systems only.
func hugeValue() (value []byte, release func(), err error) {
	b, err := syscall.Mmap(-1, 0, storage.MaxValueLen+1, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { _ = syscall.Munmap(b) }, nil
}
