//go:build !unix

package fileread

import "os"

// OpenNonBlocking is a plain open where there are no FIFOs to block on; the caller checks
// what it opened.
func OpenNonBlocking(path string) (*os.File, error) { return os.Open(path) }
