package fbc

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/joelanford/ignore"

	"github.com/odlm-render/odlm-render/internal/layered"
)

// Tree collects the files of a catalog folder that arrive in any order and
// in layers that may replace or delete earlier files: the layers of a
// container image. Each file is decoded as it arrives (read once, never
// held: only the items of the packages the Builder keeps are), and Commit
// adds the files that survive to the Builder in the order AddPath would
// read them, honouring .indexignore files.
//
// Paths are slash-separated and relative to the catalog root. Within a
// layer (between two NextLayer calls) deletions apply to earlier layers
// only, as in the OCI image layer format, whatever their order in the
// layer. Images are untrusted: no operation scans the files (see
// internal/layered), so a layer of whiteouts costs the length of their paths. A
// Tree is not safe for concurrent use.
type Tree struct {
	b      *Builder
	prefix string
	files  *layered.Files[treeEntry]
	pipe   *pipeline // decoding the current layer
}

// treeEntry is a catalog file, or the rules of an .indexignore file.
type treeEntry struct {
	file  *treeFile
	rules []byte
}

type treeFile struct {
	items []item
	err   error // a decoding error, reported by Commit if the file survives
}

// NewTree returns an empty Tree adding to b. prefix is put before each
// path in the Source of its blobs (for example "image:/configs/").
func (b *Builder) NewTree(prefix string) *Tree {
	return &Tree{b: b, prefix: prefix, files: layered.New[treeEntry]()}
}

// Put adds (or, in a later layer, replaces) a regular file. Files whose
// extension is not .yaml, .yml or .json are skipped, but .indexignore
// files are kept. Put returns only the errors of r; errors in the data are
// reported by Commit if the file is still there then.
func (t *Tree) Put(p string, r io.Reader) error {
	p = layered.CleanPath(p)
	if p == "" {
		return nil
	}
	if path.Base(p) == indexIgnoreFile {
		data, err := io.ReadAll(io.LimitReader(r, 1<<20))
		if err != nil {
			return err
		}
		t.files.Put(p, treeEntry{rules: data})
		return nil
	}
	if formatOf(p) == "" {
		return nil
	}
	if t.pipe == nil {
		// One pipeline per layer, so that small files decode in parallel
		// too; each file's items and first error go to that file.
		t.pipe = t.b.newPipeline()
		t.pipe.sink = func(c *chunk, items []item) {
			if f := c.owner; f.err == nil {
				f.items = append(f.items, items...)
			}
		}
		t.pipe.fail = func(c *chunk, err error) bool {
			if f := c.owner; f.err == nil {
				f.err = err
			}
			return true
		}
	}
	f := &treeFile{}
	t.files.Put(p, treeEntry{file: f})
	rr := &recordingReader{r: r}
	err := t.pipe.streamOwned(t.prefix+p, rr, f)
	if rr.err != nil {
		return rr.err
	}
	if err != nil && f.err == nil {
		f.err = err
	}
	return nil
}

// Delete removes a file or a folder (with everything below it) of the
// earlier layers.
func (t *Tree) Delete(p string) { t.files.Delete(p) }

// DeleteBelow removes everything below a folder of the earlier layers; ""
// is the root.
func (t *Tree) DeleteBelow(dir string) { t.files.DeleteBelow(dir) }

// NextLayer ends a layer: what it decodes is finished, and the next layer's
// deletions apply to it. It costs nothing more for a bigger tree.
func (t *Tree) NextLayer() {
	t.finish()
	t.files.NextLayer()
}

// Close stops decoding the current layer, for a caller that gives up before
// Commit (after an error): the decoding goroutines end.
func (t *Tree) Close() { t.finish() }

func (t *Tree) finish() {
	if t.pipe != nil {
		_ = t.pipe.finish(nil) // errors went to their files
		t.pipe = nil
	}
}

// Len counts the catalog files that survive the layers so far.
func (t *Tree) Len() int {
	n := 0
	for _, f := range t.files.Files() {
		if f.Value.file != nil {
			n++
		}
	}
	return n
}

// Commit ends the last layer and adds the files to the Builder.
func (t *Tree) Commit() error {
	t.NextLayer()
	files := t.files.Files()
	// the image's .indexignore files, matched as operator-registry matches a folder's
	rules := fstest.MapFS{}
	for _, f := range files {
		if f.Value.file == nil {
			rules[f.Path] = &fstest.MapFile{Data: f.Value.rules}
		}
	}
	m, err := ignore.NewMatcher(rules, indexIgnoreFile)
	if err != nil {
		return &Error{Source: fileSource(t.prefix), Err: fmt.Errorf("reading %s files: %w", indexIgnoreFile, err)}
	}
	for _, f := range files { // in the order of a folder walk
		if f.Value.file == nil || treeIgnored(m, f.Path) {
			continue
		}
		if f.Value.file.err != nil {
			return f.Value.file.err
		}
		for _, it := range f.Value.file.items {
			t.b.insert(it)
		}
	}
	return nil
}

// treeIgnored applies the .indexignore files as a folder walk would: a file below an
// ignored folder is ignored, whatever deeper files say.
func treeIgnored(m ignore.Matcher, p string) bool {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		if m.Match(filepath.FromSlash(strings.Join(parts[:i], "/")), true) {
			return true
		}
	}
	return m.Match(filepath.FromSlash(p), false)
}

// recordingReader remembers the error of the underlying reader, so that a
// broken stream is told apart from broken data.
type recordingReader struct {
	r   io.Reader
	err error
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	return n, err
}
