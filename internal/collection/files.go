package collection

// Reading the files of a collection, which is untrusted input: an Argo CD plugin renders
// the collections of every tenant in one sidecar. A name may be a FIFO (whose open waits
// for a writer forever), a link to /dev/zero (endless), a file of gigabytes, or a member of
// a small archive that unpacks to gigabytes. Every read goes through readFile, and an
// archive is unpacked within limits.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// Limits on what is read from a collection.
const (
	// maxReadFile caps a file the check parses: the operator-config, galaxy.yml,
	// MANIFEST.json, playbooks. Real ones are a few kB (an icon inline, a few hundred);
	// parsed into YAML nodes a file takes about 50 times its size in memory.
	maxReadFile = 4 << 20
	// maxContentFile caps a file searched for variable names (roles, templates, vars);
	// larger ones are not searched.
	maxContentFile = 8 << 20
	// maxArchiveMember caps a member of an archive loaded into memory: larger ones are
	// listed but not loaded, since nothing reads them.
	maxArchiveMember = maxContentFile
	// maxCollectionBytes caps the bytes unpacked from an archive (the gzip stream, and
	// the members loaded), and the bytes read from a folder's files.
	maxCollectionBytes = 256 << 20
	// maxCollectionFiles caps the members of an archive, and the files of a folder
	// looked at.
	maxCollectionFiles = 100000
)

// readFile reads a regular file (after links) of at most limit bytes; anything else is an
// error naming the file, without opening it when its type or size already says so.
func readFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, st, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil { // it may have changed since
		return nil, err
	}
	if err := checkRegular(name, st, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit { // it grew, or says a wrong size (/proc)
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("more than %s, the limit on a file the check reads", fileread.ByteSize(limit))}
	}
	return data, nil
}

func checkRegular(name string, st fs.FileInfo, limit int64) error {
	switch {
	case !st.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("not a regular file (%s)", fileread.DescribeMode(st.Mode()))}
	case st.Size() > limit:
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%d bytes, over the %s limit on a file the check reads", st.Size(), fileread.ByteSize(limit))}
	}
	return nil
}

// dirFS is os.DirFS opening files without blocking (fileread.OpenNonBlocking), so that the open of a
// FIFO returns; readFile then refuses it. Links are followed, as os.DirFS does.
type dirFS string

func (d dirFS) join(op, name string) (string, error) {
	local, err := filepath.Localize(name)
	if err != nil || !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), local), nil
}

func (d dirFS) Open(name string) (fs.File, error) {
	full, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	f, err := fileread.OpenNonBlocking(full)
	if err != nil {
		return nil, renamed(err, name)
	}
	return f, nil
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	full, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(full)
	if err != nil {
		return nil, renamed(err, name)
	}
	return st, nil
}

// renamed puts the collection's name of a file in an error of the os package, as os.DirFS
// does, so that messages do not depend on where the folder is.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
	}
	return err
}
