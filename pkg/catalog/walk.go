package catalog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/joelanford/ignore"
)

const indexIgnoreFile = ".indexignore"

// addTree adds the catalog files under root, honouring its .indexignore files as
// operator-registry does (github.com/joelanford/ignore: gitignore rules, each file's patterns
// relative to its folder).
func (b *Builder) addTree(root string, p *pipeline) error {
	m, err := ignore.NewMatcher(os.DirFS(root), indexIgnoreFile)
	if err != nil {
		return &Error{Source: fileSource(root), Err: fmt.Errorf("reading %s files: %w", indexIgnoreFile, err)}
	}
	return b.addDir(root, root, m, p)
}

// addDir adds the catalog files under dir, a folder of root. Folders are read one at a time,
// in lexical order, so that errors and duplicates are reported the same way on every
// machine; an ignored folder is not read. Symlinked folders are not followed (a link loop
// would never end); symlinked files are.
func (b *Builder) addDir(root, dir string, m ignore.Matcher, p *pipeline) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{Source: fileSource(dir), Err: err}
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
		if rel, err := filepath.Rel(root, full); err == nil && m.Match(rel, isDir) {
			continue
		}
		switch {
		case isDir:
			if err := b.addDir(root, full, m, p); err != nil {
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
