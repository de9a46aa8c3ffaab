//go:build unix

package image

import (
	"io/fs"
	"syscall"
)

// ownerOf is the uid of a file's owner.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
