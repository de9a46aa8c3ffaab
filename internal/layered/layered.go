// Package layered owns the files of a folder built from the layers of a container image, as
// the OCI image layer format defines them: each layer adds or replaces files and deletes
// (whiteouts, opaque folders) files and folders of the layers below it. Images are untrusted,
// so no operation scans the files: a hostile image with as many whiteouts as files costs the
// length of their paths. internal/fbc's Tree (a catalog image's configs folder) and
// internal/image (a bundle image's manifests folder) hold their files in it.
package layered

import (
	"hash/maphash"
	"path"
	"slices"
	"strings"
)

// Files holds the files of a folder built from the layers of a
// container image: each layer adds or replaces files, and deletes
// (whiteouts) files and folders of the layers below it. Paths are
// slash-separated and relative to the folder ("" is the folder itself).
//
// Images are untrusted, and a hostile one holds as many files and
// whiteouts as it likes, so no operation scans the files: a whiteout is
// recorded with the layer that made it, in time proportional to the length
// of its path, and Files decides once which files survive, in time linear
// in the length of their paths. A file survives when no later layer deleted
// it, a folder above it, or emptied a folder above it. A Files is
// not safe for concurrent use.
type Files[V any] struct {
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

// File is a file that survives the layers, and its value.
type File[V any] struct {
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

// New returns an empty Files; its first layer begins.
func New[V any]() *Files[V] {
	return &Files[V]{layer: 1, files: map[string]layeredFile[V]{}, seed: maphash.MakeSeed(),
		deleted: map[uint64][]whiteout{}, emptied: map[uint64][]whiteout{}}
}

// Put adds a file to the current layer: it replaces a file of the same path
// put before, and a folder of the same path of the earlier layers.
func (l *Files[V]) Put(p string, v V) {
	if p = CleanPath(p); p == "" {
		return
	}
	l.files[p] = layeredFile[V]{layer: l.layer, value: v}
	l.mark(l.emptied, p)
}

// Delete removes a file or a folder (with everything below it) of the
// earlier layers; "" is the root.
func (l *Files[V]) Delete(p string) {
	if p = CleanPath(p); p == "" {
		l.rootDeleted = l.layer
		return
	}
	l.mark(l.deleted, p)
}

// DeleteBelow removes everything below a folder of the earlier layers; ""
// is the root.
func (l *Files[V]) DeleteBelow(dir string) {
	if dir = CleanPath(dir); dir == "" {
		l.rootEmptied = l.layer
		return
	}
	l.mark(l.emptied, dir)
}

// NextLayer ends a layer.
func (l *Files[V]) NextLayer() { l.layer++ }

// mark records a whiteout of p by the current layer.
func (l *Files[V]) mark(m map[uint64][]whiteout, p string) {
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
func (l *Files[V]) Files() []File[V] {
	out := make([]File[V], 0, len(l.files))
	for p, f := range l.files {
		if l.survives(p, f.layer) {
			out = append(out, File[V]{Path: p, Value: f.value})
		}
	}
	slices.SortFunc(out, func(a, b File[V]) int { return walkOrder(a.Path, b.Path) })
	return out
}

// survives tells whether no later layer than the file's deleted it, a
// folder above it, or emptied a folder above it. The hash of each folder
// above it is that of the path so far, so the check costs the length of p.
func (l *Files[V]) survives(p string, layer int) bool {
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

// CleanPath is p as Files keys it: slash-separated, relative to the folder, cleaned ("" for
// the folder itself).
func CleanPath(p string) string {
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}
