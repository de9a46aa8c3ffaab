//go:build !unix

package fileread

import "os"

// There are no FIFOs to block on here: a plain open, checked by Open as everywhere.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
