package collection

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// archiveLimits are the caps readArchive applies; tests use small ones.
type archiveLimits struct {
	bytes  int64 // bytes unpacked, and bytes of the members loaded
	files  int   // members
	member int64 // the largest member loaded
}

var defaultArchiveLimits = archiveLimits{bytes: maxCollectionBytes, files: maxCollectionFiles, member: maxArchiveMember}

// readArchive loads a gzipped tar (a built collection) into memory, within limits: a few
// kB of gzip may unpack to gigabytes. Only regular files and folders are kept; a member
// path that leaves the archive is an error.
func readArchive(p string, limits archiveLimits) (fs.FS, error) {
	f, err := fileread.OpenNonBlocking(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		if err == nil {
			err = fmt.Errorf("not a regular file (%s)", fileread.DescribeMode(st.Mode()))
		}
		return nil, err
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	u := &unpacker{limits: limits, in: &budgetReader{r: gz, left: limits.bytes},
		out: &archiveFS{files: fstest.MapFS{}, skipped: map[string]int64{}, limit: limits.member}}
	if err := u.run(); err != nil {
		return nil, err
	}
	return u.out, nil
}

type unpacker struct {
	limits archiveLimits
	in     *budgetReader
	out    *archiveFS
	loaded int64  // bytes of the members loaded
	member string // the member being read
}

func (u *unpacker) run() error {
	tr := tar.NewReader(u.in)
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return u.failed(err)
		}
		if n >= u.limits.files {
			return fmt.Errorf("more than %d members, the limit on an archive (at member %q)", u.limits.files, h.Name)
		}
		u.member = h.Name
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." {
			continue
		}
		if !fs.ValidPath(name) {
			return fmt.Errorf("member %q is outside the archive", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			u.out.files[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		case tar.TypeReg:
			if err := u.load(tr, name, h.Size); err != nil {
				return err
			}
		}
	}
}

// load keeps a member, or only its size when it is over the member limit (tar.Reader
// skips its bytes, which still count as unpacked). Its size is the header's: a sparse
// member unpacks to that many bytes from far fewer in the stream.
func (u *unpacker) load(tr io.Reader, name string, size int64) error {
	delete(u.out.skipped, name) // a later member of the same name replaces it
	if size > u.limits.member {
		u.out.files[name] = &fstest.MapFile{Mode: 0o644}
		u.out.skipped[name] = size
		return nil
	}
	if u.loaded += size; u.loaded > u.limits.bytes {
		return u.failed(errUnpackedTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(tr, size))
	if err != nil {
		return u.failed(err)
	}
	u.out.files[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	return nil
}

// errUnpackedTooLarge: the archive unpacks to more than the limit.
var errUnpackedTooLarge = errors.New("unpacked bytes over the limit")

// failed names the limit and the member of a read that stopped at the byte limit.
func (u *unpacker) failed(err error) error {
	if !errors.Is(err, errUnpackedTooLarge) {
		return err
	}
	at := ""
	if u.member != "" {
		at = fmt.Sprintf(" (at member %q)", u.member)
	}
	return fmt.Errorf("more than %s unpacked, the limit on an archive%s", fileread.ByteSize(u.limits.bytes), at)
}

// budgetReader fails with errUnpackedTooLarge once more than left bytes were read.
type budgetReader struct {
	r    io.Reader
	left int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errUnpackedTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return n, errUnpackedTooLarge
	}
	return n, err
}

// archiveFS is the members of an archive: those loaded, and the names and sizes of those
// over the member limit, which cannot be opened.
type archiveFS struct {
	files   fstest.MapFS
	skipped map[string]int64
	limit   int64
}

func (a *archiveFS) Open(name string) (fs.File, error) {
	if size, ok := a.skipped[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name,
			Err: fmt.Errorf("%d bytes unpacked, over the %s limit on one member of an archive", size, fileread.ByteSize(a.limit))}
	}
	return a.files.Open(name)
}

func (a *archiveFS) Stat(name string) (fs.FileInfo, error) {
	st, err := a.files.Stat(name)
	if size, ok := a.skipped[name]; ok && err == nil {
		return sizedInfo{st, size}, nil
	}
	return st, err
}

func (a *archiveFS) ReadDir(name string) ([]fs.DirEntry, error) { return a.files.ReadDir(name) }

// sizedInfo is the FileInfo of a member not loaded, with its size.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }
