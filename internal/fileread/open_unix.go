//go:build unix

package fileread

import (
	"os"
	"syscall"
)

// OpenNonBlocking opens path for reading without waiting for a writer when it is a FIFO (for
// a regular file or a folder, O_NONBLOCK changes nothing); the caller checks what it opened.
func OpenNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
