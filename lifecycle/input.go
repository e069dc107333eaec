package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports an input path that names something other than a
// regular file: a directory, a named pipe (FIFO), a device, a socket. Such
// a path is refused before it is read: opening a FIFO blocks until a
// writer comes, and reading a device or a socket never ends, or ends with
// whatever the other side sends.
var ErrNotRegular = errors.New("not a regular file")

// OpenInput opens the file at path for reading, refusing (ErrNotRegular)
// anything but a regular file, or a symbolic link to one. It never blocks:
// the path is checked with Lstat (and Stat, through a link) first, and
// opened with O_NONBLOCK, so that a path swapped for a FIFO between the
// check and the open is not waited on; what was opened is checked again.
// Every file the lifecycle and the telha command read (exports, documents,
// ledger files, the files of a checkpoint) is opened by it.
func OpenInput(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = os.Stat(path)
	}
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = regular(path, fi)
	}
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return f, nil
}

// regular returns nil if fi is a regular file, and otherwise ErrNotRegular
// naming what path is.
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s: %w", path, describeMode(fi.Mode()), ErrNotRegular)
}

// describeMode names the kind of file of mode.
func describeMode(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return fmt.Sprintf("not a regular file (mode %s)", mode)
}
