package catalog

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/joelanford/ignore"
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
// LayeredFiles), so a layer of whiteouts costs the length of their paths. A
// Tree is not safe for concurrent use.
type Tree struct {
	b      *Builder
	prefix string
	files  *LayeredFiles[treeEntry]
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
	return &Tree{b: b, prefix: prefix, files: NewLayeredFiles[treeEntry]()}
}

// Put adds (or, in a later layer, replaces) a regular file. Files whose
// extension is not .yaml, .yml or .json are skipped, but .indexignore
// files are kept. Put returns only the errors of r; errors in the data are
// reported by Commit if the file is still there then.
func (t *Tree) Put(p string, r io.Reader) error {
	p = cleanTreePath(p)
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

func cleanTreePath(p string) string {
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}

// LayeredFiles holds the files of a folder built from the layers of a
// container image: each layer adds or replaces files, and deletes
// (whiteouts) files and folders of the layers below it. Paths are
// slash-separated and relative to the folder ("" is the folder itself).
//
// Images are untrusted, and a hostile one holds as many files and
// whiteouts as it likes, so no operation scans the files: a whiteout is
// recorded with the layer that made it, in time proportional to the length
// of its path, and Files decides once which files survive, in time linear
// in the length of their paths. A file survives when no later layer deleted
// it, a folder above it, or emptied a folder above it. A LayeredFiles is
// not safe for concurrent use.
type LayeredFiles[V any] struct {
	layer int
	files map[string]layeredFile[V]
	// deleted and emptied hold the whiteouts by the hash of their paths:
	// deleted paths lose themselves and everything below, emptied folders
	// everything below (an opaque whiteout, or a file that replaces a folder)
	seed             maphash.Seed
	deleted, emptied map[uint64][]whiteout
	// the last layer that deleted or emptied the root (0 for none)
	rootDeleted, rootEmptied int
}

// LayeredFile is a file that survives the layers, and its value.
type LayeredFile[V any] struct {
	Path  string
	Value V
}

type layeredFile[V any] struct {
	layer int
	value V
}

type whiteout struct {
	path  string
	layer int
}

// NewLayeredFiles returns an empty LayeredFiles; its first layer begins.
func NewLayeredFiles[V any]() *LayeredFiles[V] {
	return &LayeredFiles[V]{layer: 1, files: map[string]layeredFile[V]{}, seed: maphash.MakeSeed(),
		deleted: map[uint64][]whiteout{}, emptied: map[uint64][]whiteout{}}
}

// Put adds a file to the current layer: it replaces a file of the same path
// put before, and a folder of the same path of the earlier layers.
func (l *LayeredFiles[V]) Put(p string, v V) {
	if p = cleanTreePath(p); p == "" {
		return
	}
	l.files[p] = layeredFile[V]{layer: l.layer, value: v}
	l.mark(l.emptied, p)
}

// Delete removes a file or a folder (with everything below it) of the
// earlier layers; "" is the root.
func (l *LayeredFiles[V]) Delete(p string) {
	if p = cleanTreePath(p); p == "" {
		l.rootDeleted = l.layer
		return
	}
	l.mark(l.deleted, p)
}

// DeleteBelow removes everything below a folder of the earlier layers; ""
// is the root.
func (l *LayeredFiles[V]) DeleteBelow(dir string) {
	if dir = cleanTreePath(dir); dir == "" {
		l.rootEmptied = l.layer
		return
	}
	l.mark(l.emptied, dir)
}

// NextLayer ends a layer.
func (l *LayeredFiles[V]) NextLayer() { l.layer++ }

// mark records a whiteout of p by the current layer.
func (l *LayeredFiles[V]) mark(m map[uint64][]whiteout, p string) {
	h := maphash.String(l.seed, p)
	ws := m[h]
	for i := range ws {
		if ws[i].path == p {
			ws[i].layer = l.layer
			return
		}
	}
	m[h] = append(ws, whiteout{path: p, layer: l.layer})
}

// Files returns the files that survive, in the order a walk of the folder
// meets them ("a/x.yaml" before "a.yaml").
func (l *LayeredFiles[V]) Files() []LayeredFile[V] {
	out := make([]LayeredFile[V], 0, len(l.files))
	for p, f := range l.files {
		if l.survives(p, f.layer) {
			out = append(out, LayeredFile[V]{Path: p, Value: f.value})
		}
	}
	slices.SortFunc(out, func(a, b LayeredFile[V]) int { return walkOrder(a.Path, b.Path) })
	return out
}

// survives tells whether no later layer than the file's deleted it, a
// folder above it, or emptied a folder above it. The hash of each folder
// above it is that of the path so far, so the check costs the length of p.
func (l *LayeredFiles[V]) survives(p string, layer int) bool {
	if l.rootDeleted > layer || l.rootEmptied > layer {
		return false
	}
	var h maphash.Hash
	h.SetSeed(l.seed)
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		h.WriteString(p[start:i])
		start = i
		sum := h.Sum64()
		if later(l.deleted[sum], p[:i], layer) || (i < len(p) && later(l.emptied[sum], p[:i], layer)) {
			return false
		}
	}
	return true
}

// later tells whether ws holds a whiteout of p made after layer.
func later(ws []whiteout, p string, layer int) bool {
	for _, w := range ws {
		if w.layer > layer && w.path == p {
			return true
		}
	}
	return false
}

// walkOrder compares paths as a walk of their folder meets them: folder by
// folder, so that "/" sorts before any other byte.
func walkOrder(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] == b[i] {
			continue
		}
		switch {
		case a[i] == '/':
			return -1
		case b[i] == '/':
			return 1
		case a[i] < b[i]:
			return -1
		}
		return 1
	}
	return len(a) - len(b)
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
