package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

const indexIgnoreFile = ".indexignore"

// addDir adds the catalog files under dir. ignores are the .indexignore
// files of the folders above, outermost first. Folders are read one at a
// time, in lexical order, so that errors and duplicates are reported the
// same way on every machine. Symlinked folders are not followed (a link
// loop would never end); symlinked files are.
func (b *Builder) addDir(dir string, ignores []*ignoreFile, p *pipeline) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{Source: fileSource(dir), Err: err}
	}
	ignorePath := filepath.Join(dir, indexIgnoreFile)
	data, err := os.ReadFile(ignorePath)
	switch {
	case err == nil:
		f, err := parseIgnore(dir, data)
		if err != nil {
			return &Error{Source: fileSource(ignorePath), Err: err}
		}
		ignores = append(ignores[:len(ignores):len(ignores)], f)
	case !errors.Is(err, fs.ErrNotExist):
		return &Error{Source: fileSource(ignorePath), Err: err}
	}
	for _, e := range entries {
		if e.Name() == indexIgnoreFile {
			continue
		}
		full := filepath.Join(dir, e.Name())
		isDir, regular := e.IsDir(), e.Type().IsRegular()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(full)
			if err != nil {
				return &Error{Source: fileSource(full), Err: err}
			}
			isDir, regular = false, fi.Mode().IsRegular()
		}
		if ignored(ignores, full, isDir) {
			continue
		}
		switch {
		case isDir:
			if err := b.addDir(full, ignores, p); err != nil {
				return err
			}
		case regular && formatOf(full) != "":
			if err := addFile(full, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// addFile streams a file into a pipeline.
func addFile(path string, p *pipeline) error {
	f, err := os.Open(path)
	if err != nil {
		return &Error{Source: fileSource(path), Err: err}
	}
	defer f.Close()
	return p.stream(path, f)
}
