package catalog

import (
	"errors"
	"fmt"
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
// layer. A Tree is not safe for concurrent use.
type Tree struct {
	b      *Builder
	prefix string
	files  map[string]*treeFile // committed layers
	rules  map[string][]byte    // folder → its .indexignore

	stagedFiles map[string]*treeFile
	pipe        *pipeline // decoding the current layer
	stagedRules map[string][]byte
	deleted     []string // paths deleted by the current layer
	opaque      []string // folders emptied by the current layer ("" is the root)
}

type treeFile struct {
	items []item
	err   error // a decoding error, reported by Commit if the file survives
}

// NewTree returns an empty Tree adding to b. prefix is put before each
// path in the Source of its blobs (for example "image:/configs/").
func (b *Builder) NewTree(prefix string) *Tree {
	return &Tree{b: b, prefix: prefix, files: map[string]*treeFile{}, rules: map[string][]byte{},
		stagedFiles: map[string]*treeFile{}, stagedRules: map[string][]byte{}}
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
		t.stagedRules[path.Dir(p)] = data
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
	t.stagedFiles[p] = f
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
func (t *Tree) Delete(p string) {
	t.deleted = append(t.deleted, cleanTreePath(p))
}

// DeleteBelow removes everything below a folder of the earlier layers; ""
// is the root.
func (t *Tree) DeleteBelow(dir string) {
	t.opaque = append(t.opaque, cleanTreePath(dir))
}

// NextLayer ends a layer: its deletions, then its files, are applied.
func (t *Tree) NextLayer() {
	if t.pipe != nil {
		_ = t.pipe.finish(nil) // errors went to their files
		t.pipe = nil
	}
	for _, d := range t.deleted {
		removeTree(t.files, d, true)
		removeTree(t.rules, d, true)
	}
	for _, d := range t.opaque {
		removeTree(t.files, d, false)
		removeTree(t.rules, d, false)
	}
	for p, f := range t.stagedFiles {
		removeTree(t.files, p, false) // a file replaces a folder of the same name
		removeTree(t.rules, p, false)
		t.files[p] = f
	}
	for d, r := range t.stagedRules {
		t.rules[d] = r
	}
	t.deleted, t.opaque = t.deleted[:0], t.opaque[:0]
	clear(t.stagedFiles)
	clear(t.stagedRules)
}

// Len counts the catalog files of the committed layers.
func (t *Tree) Len() int { return len(t.files) }

// Commit ends the last layer and adds the files to the Builder.
func (t *Tree) Commit() error {
	t.NextLayer()
	// the image's .indexignore files, matched as operator-registry matches a folder's
	rules := fstest.MapFS{}
	for d, data := range t.rules {
		rules[path.Join(d, indexIgnoreFile)] = &fstest.MapFile{Data: data}
	}
	m, err := ignore.NewMatcher(rules, indexIgnoreFile)
	if err != nil {
		return &Error{Source: fileSource(t.prefix), Err: fmt.Errorf("reading %s files: %w", indexIgnoreFile, err)}
	}
	paths := make([]string, 0, len(t.files))
	for p := range t.files {
		if !treeIgnored(m, p) {
			paths = append(paths, p)
		}
	}
	// The order of a folder walk: "a/x.yaml" before "a.yaml".
	slices.SortFunc(paths, func(a, b string) int {
		return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
	})
	for _, p := range paths {
		f := t.files[p]
		if f.err != nil {
			return f.err
		}
		for _, it := range f.items {
			t.b.insert(it)
		}
	}
	return nil
}

func cleanTreePath(p string) string {
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}

// removeTree deletes p (when self) and everything below it; p "" is the root.
func removeTree[V any](m map[string]V, p string, self bool) {
	if p == "." {
		p = ""
	}
	for k := range m {
		switch {
		case k == p:
			if self {
				delete(m, k)
			}
		case p == "" || strings.HasPrefix(k, p+"/"):
			delete(m, k)
		}
	}
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
