package fbc

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/joelanford/ignore"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

const indexIgnoreFile = ".indexignore"

// maxIndexIgnore caps one .indexignore file: a few lines of patterns in practice.
const maxIndexIgnore = 1 << 20

// ignoreFS is the catalog folder as the .indexignore matcher reads it: its .indexignore
// files must be regular files (after resolving links) of at most maxIndexIgnore bytes, so
// that a link to /dev/urandom is an error rather than a read without end.
type ignoreFS struct{ fs.FS }

func (f ignoreFS) Open(name string) (fs.File, error) {
	if path.Base(name) != indexIgnoreFile {
		return f.FS.Open(name)
	}
	// stat before opening: opening a FIFO would block until a writer comes
	fi, err := fs.Stat(f.FS, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fileread.NotRegularError{Name: name, Mode: fi.Mode()}
	}
	file, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err = file.Stat(); err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxIndexIgnore) {
		err = &fileread.TooLargeError{Name: name, Limit: maxIndexIgnore}
	}
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	return limitedFile{file, io.LimitReader(file, maxIndexIgnore)}, nil
}

// limitedFile reads at most maxIndexIgnore bytes of a file that grows after its Stat.
type limitedFile struct {
	fs.File
	r io.Reader
}

func (l limitedFile) Read(p []byte) (int, error) { return l.r.Read(p) }

// addTree adds the catalog files under root, honouring its .indexignore files as
// operator-registry does (github.com/joelanford/ignore: gitignore rules, each file's patterns
// relative to its folder).
func (b *Builder) addTree(root string, p *pipeline) error {
	m, err := ignore.NewMatcher(ignoreFS{os.DirFS(root)}, indexIgnoreFile)
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
		isDir := e.IsDir() // a symlinked folder is not followed
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(full); err != nil {
				return &Error{Source: fileSource(full), Err: err}
			}
		}
		if rel, err := filepath.Rel(root, full); err == nil && m.Match(rel, isDir) {
			continue
		}
		switch {
		case isDir:
			if err := b.addDir(root, full, m, p); err != nil {
				return err
			}
		case formatOf(full) != "":
			// a FIFO or device named like a catalog file is an error (addFile says so), not skipped
			if err := b.confined(full); err != nil {
				return err
			}
			if err := addFile(full, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// addFile streams a file into a pipeline: a regular file only (a link to /dev/zero or a
// FIFO is an error, not an endless or blocked read).
func addFile(path string, p *pipeline) error {
	f, err := fileread.Open(path)
	if err != nil {
		if fileread.IsLimit(err) {
			return err // it names the file
		}
		return &Error{Source: fileSource(path), Err: err}
	}
	defer f.Close()
	return p.stream(path, f)
}
