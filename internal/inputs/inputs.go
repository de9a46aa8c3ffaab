// Package inputs owns turning what a user hands a front door (files, folders, stdin, or the
// items of a KRM ResourceList) into the three kinds of input a render takes: resources,
// catalog blobs, and objects that are only for client-side tools.
//
// It reads the file system; pkg/render never does.
package inputs

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// LocalConfigAnnotation marks objects meant for client-side tools only.
const LocalConfigAnnotation = "config.kubernetes.io/local-config"

// Set is a classified set of input documents.
type Set struct {
	// Resources are Kubernetes objects: rendered from, read, and passed through.
	Resources []*manifest.Object
	// CatalogBlobs are catalog data: OLM file-based catalog blobs (documents with a schema
	// field) and CatalogSnapshots (what `odlm-render catalog extract` writes).
	CatalogBlobs []*manifest.Object
	// Local are objects for client-side tools (Kptfile, Kustomization, local-config).
	Local []*manifest.Object
}

// Classify sorts decoded documents into a Set. A document that is neither a Kubernetes
// object nor a catalog blob is an error naming its file and line.
func Classify(docs []*manifest.Object) (Set, error) {
	var s Set
	for _, d := range docs {
		switch {
		case IsCatalogBlob(d):
			s.CatalogBlobs = append(s.CatalogBlobs, d)
		case d.APIVersion() == "" || d.Kind() == "":
			return Set{}, notObjectError(d)
		case IsLocal(d):
			s.Local = append(s.Local, d)
		default:
			s.Resources = append(s.Resources, d)
		}
	}
	return s, nil
}

// IsCatalogBlob reports catalog data: an FBC blob (a document with a string schema and no
// kind) or a CatalogSnapshot (see IsCatalogSnapshot).
func IsCatalogBlob(d *manifest.Object) bool {
	if IsCatalogSnapshot(d) {
		return true
	}
	schema, ok := d.Map["schema"].(string)
	return ok && schema != "" && d.Kind() == ""
}

// IsCatalogSnapshot reports a CatalogSnapshot, as `odlm-render catalog extract` writes it:
// kind CatalogSnapshot in odlm-render's API group, of any version (the catalog loader
// reports a version it does not read, rather than the document being ignored as local).
func IsCatalogSnapshot(d *manifest.Object) bool {
	return d.Kind() == fbc.SnapshotKind && d.Group() == ConfigGroup
}

// IsLocal reports objects that are not resources: local-config ones, Kptfiles, kustomize's
// and odlm-render's own configuration kinds. ODLM inputs are never local, even when
// annotated local-config: that is how kpt users keep them out of `kpt live apply`, and they
// must still be rendered (the render keeps such inputs in its output).
func IsLocal(d *manifest.Object) bool {
	switch d.Group() {
	case "kpt.dev", "kustomize.config.k8s.io", "config.kubernetes.io", ConfigGroup:
		return true
	case ODLMGroup:
		return false
	}
	return d.Annotations()[LocalConfigAnnotation] == "true"
}

// ConfigGroup is the API group of odlm-render's own configuration kinds (RenderConfig).
const ConfigGroup = "odlm-render.io"

// ODLMGroup is the API group of ODLM's kinds.
const ODLMGroup = "operator.ibm.com"

// ReadPaths decodes files and folders (recursively: *.yaml, *.yml, *.json; hidden entries
// skipped). "-" reads stdin. Files are read in a stable order, each at most
// fileread.MaxBytes and all together at most fileread.MaxTotalBytes.
func ReadPaths(paths []string, stdin io.Reader) ([]*manifest.Object, error) {
	return ReadPathsWithin(paths, stdin, nil)
}

// ReadPathsWithin is ReadPaths confining every file read to the folders within (none: no
// confinement): a path, or a file of a folder, that resolves elsewhere (a symbolic link
// pointing out of the folders) is an error naming it.
func ReadPathsWithin(paths []string, stdin io.Reader, within []string) ([]*manifest.Object, error) {
	var out []*manifest.Object
	budget := fileread.NewBudget() // all the files together: fileread.MaxTotalBytes
	for _, p := range paths {
		if p == "-" {
			data, err := budget.ReadAll("stdin", stdin)
			if err != nil {
				if fileread.IsLimit(err) {
					return nil, err // it names stdin
				}
				return nil, fmt.Errorf("reading stdin: %w", err)
			}
			objs, err := manifest.Decode("-", data)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
			continue
		}
		files, err := listFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if len(within) > 0 && !fileread.Inside(f, within...) {
				return nil, &fileread.OutsideError{What: "file", Path: f, Roots: within}
			}
			data, err := budget.ReadFile(f)
			if err != nil {
				return nil, err
			}
			objs, err := manifest.Decode(filepath.ToSlash(f), data)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

func listFiles(root string) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{root}, nil
	}
	walkRoot := root
	if l, err := os.Lstat(root); err == nil && l.Mode()&fs.ModeSymlink != 0 {
		// A PATH that is a symlink to a folder is read (WalkDir would not enter it);
		// symlinked folders inside it are still not followed.
		walkRoot = root + string(filepath.Separator)
	}
	var files []string
	err = filepath.WalkDir(walkRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if path != walkRoot && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && isManifestFile(name) {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

func isManifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// LoadCatalog builds one catalog from catalog paths and the catalog data found among the
// inputs (FBC blobs and CatalogSnapshots, see IsCatalogBlob). It returns nil when there is
// neither.
func LoadCatalog(paths []string, blobs []*manifest.Object) (*catalog.Catalog, error) {
	return LoadCatalogWith(catalog.LoadOptions{}, paths, blobs)
}

// LoadCatalogWith is LoadCatalog with load options (the mirror command keeps relatedImages).
func LoadCatalogWith(opts catalog.LoadOptions, paths []string, blobs []*manifest.Object) (*catalog.Catalog, error) {
	if len(paths) == 0 && len(blobs) == 0 {
		return nil, nil
	}
	b := fbc.NewBuilder(opts)
	// the same catalog given twice is one catalog: the same path (spelt differently, or a
	// file inside a folder given too), a file with the same bytes as one already read, and
	// blobs among the PATHs from a file that a --catalog path covers
	var read []string             // canonical paths already added
	contents := map[string]bool{} // sha256 of the files already added
	covered := func(c string) bool {
		for _, r := range read {
			if c == r || strings.HasPrefix(c, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for _, p := range paths {
		c := canonicalPath(p)
		if covered(c) {
			continue
		}
		if sum, ok := fileDigest(p); ok {
			if contents[sum] {
				continue
			}
			contents[sum] = true
		}
		if err := b.AddPath(p); err != nil {
			return nil, err
		}
		read = append(read, c)
	}
	for _, blob := range blobs {
		if blob.Source.File != "" && blob.Source.File != "-" && covered(canonicalPath(blob.Source.File)) {
			continue
		}
		if err := addCatalogObject(b, blob); err != nil {
			return nil, err
		}
	}
	return b.Catalog()
}

// fileDigest is the sha256 of a regular file, streamed (catalog files may be large); ok is
// false for a folder or a file that cannot be read, which AddPath then reads or reports.
func fileDigest(p string) (string, bool) {
	f, err := fileread.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return string(h.Sum(nil)), true
}

// canonicalPath is a path's absolute, cleaned, symlink-resolved form (as far as it resolves).
func canonicalPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		return resolved
	}
	return abs
}

// addCatalogObject adds one decoded document to the catalog: a CatalogSnapshot (errors in
// its packages point at the package's line) or an FBC blob.
func addCatalogObject(b *fbc.Builder, obj *manifest.Object) error {
	src := catalog.Source{File: obj.Source.File, Index: obj.Source.Index, Line: obj.Source.Line}
	if IsCatalogSnapshot(obj) {
		return b.AddSnapshotObject(src, obj.Map, obj.Source.LineOf)
	}
	return b.AddBlob(src, obj.Map)
}

// LoadSnapshot reads snapshot files and folders (as the CLI reads its inputs) into a
// cluster.Snapshot. Catalog blobs and client-side configuration among them are ignored.
func LoadSnapshot(paths ...string) (*cluster.Snapshot, error) {
	return LoadSnapshotWithin(nil, paths...)
}

// LoadSnapshotWithin is LoadSnapshot confining every file read to within (ReadPathsWithin).
func LoadSnapshotWithin(within []string, paths ...string) (*cluster.Snapshot, error) {
	docs, err := ReadPathsWithin(paths, nil, within)
	if err != nil {
		return nil, err
	}
	set, err := Classify(docs)
	if err != nil {
		return nil, err
	}
	objs, err := distinctObjects(set.Resources)
	if err != nil {
		return nil, err
	}
	return cluster.NewSnapshot(objs), nil
}

// distinctObjects drops identical copies of an object (the same export in two folders) and
// refuses two different objects of one identity: which would win would depend on the file
// names, and a cluster holds only one.
func distinctObjects(objs []*manifest.Object) ([]*manifest.Object, error) {
	seen := make(map[manifest.Key]*manifest.Object, len(objs))
	out := objs[:0:0]
	for _, o := range objs {
		key := o.Ref().Key()
		first, dup := seen[key]
		if !dup {
			seen[key] = o
			out = append(out, o)
			continue
		}
		if !reflect.DeepEqual(first.Map, o.Map) {
			return nil, &manifest.SyntaxError{File: o.Source.File, Line: o.Source.Line, Msg: fmt.Sprintf(
				"%s is also at %s with other contents: a snapshot holds each object once", o.Ref(), place(first.Source))}
		}
	}
	return out, nil
}

func place(s manifest.Source) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}
