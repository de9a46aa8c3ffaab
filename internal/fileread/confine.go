package fileread

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Resolve is path made absolute with every symbolic link resolved: where a read of path
// really goes. The path must exist.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Inside reports whether path, once resolved, is one of roots or below one (roots are
// resolved too; a root that does not exist holds nothing). A path that does not exist is
// not inside anything: its links cannot be followed to say where it goes.
func Inside(path string, roots ...string) bool {
	resolved, err := Resolve(path)
	if err != nil {
		return false
	}
	for _, root := range roots {
		r, err := Resolve(root)
		if err != nil {
			continue
		}
		if resolved == r || strings.HasPrefix(resolved, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// OutsideError is a path that leaves the folders it may be read from.
type OutsideError struct {
	What, Path string
	Roots      []string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s %s: resolves outside %s (symbolic links included): refused", e.What, e.Path, strings.Join(e.Roots, ", "))
}
