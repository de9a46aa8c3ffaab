package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/odlm-render/odlm-render/internal/crash"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/krm"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// GeneratedDir is the folder (relative to the package) where kpt and `kustomize fn run`
// write the objects the function creates.
const GeneratedDir = "odlm-rendered"

// process renders the ResourceList on in and writes the answer on out: ODLM inputs and
// catalog data in, rendered objects out; Kptfiles and local-config items are left exactly
// as they came. With an error result, the items are written back unchanged (no partial
// output), failed is true and every error is printed on stderr. err is an input that is not
// a ResourceList, or a failure to write; then nothing usable was written.
func process(in io.Reader, out, stderr io.Writer, eng engine, within []string) (failed bool, err error) {
	rl, err := krm.Read(in)
	if err != nil {
		return true, err
	}
	results, objects := safeRenderList(rl, eng, within)
	// the line of each result's field in the user's file, where kpt or kustomize named the
	// file: results then come in the CLI's order (by file and line), and errors read as its do
	lines := fileLines{}
	for i := range results {
		results[i].Line = lines.of(results[i])
	}
	results = results.Sort()
	w := rl.NewWriter(out)
	if results.HasErrors() {
		for _, it := range rl.Items {
			w.Keep(it)
		}
		for _, r := range results.Errors() {
			fmt.Fprintf(stderr, "odlm-render-fn: %s\n", r)
		}
	} else {
		for _, o := range objects {
			if o.kept != nil {
				w.Keep(o.kept)
			} else {
				w.Add(withFileAnnotations(o.obj))
			}
		}
	}
	return results.HasErrors(), w.Close(toResults(results))
}

// outItem is one item of the answer: an input item kept as it came, or a rendered object.
type outItem struct {
	kept *krm.Item
	obj  *manifest.Object
}

// engine is what the function calls: render.Render (tests pass another one to check the
// last line of defence).
type engine func(render.Inputs, render.Options) render.Output

// safeRenderList is renderList with a panic turned into one internal-error result: the
// answer is then what any error gives (the input items back, no rendered object).
func safeRenderList(rl *krm.ResourceList, eng engine, within []string) (results diag.Results, objects []outItem) {
	defer func() {
		if p := recover(); p != nil {
			results, objects = diag.Results{{Severity: diag.Error, Message: crash.FromPanic(p).Error()}}, nil
		}
	}()
	return renderList(rl, eng, within)
}

// renderList renders the items and the inputs the functionConfig names, and returns the
// results and the answer's items (sortedItems.answer).
// renderList renders a ResourceList; every file its functionConfig's paths read (links
// followed) must resolve inside within (readRoots).
func renderList(rl *krm.ResourceList, eng engine, within []string) (diag.Results, []outItem) {
	cfg, err := parseConfig(rl.FunctionConfig)
	if err != nil {
		return failure(err)
	}
	items := sortItems(rl.Items)
	// inputs read from files are what a kustomize generator (which gets no items) renders
	in, sources, err := inputs.Load(inputs.Request{Given: items.given, Paths: cfg.Inputs, Catalogs: cfg.Catalogs, GlobalCatalogNamespace: cfg.GlobalNamespace(),
		Snapshots: cfg.Snapshots, Names: inputs.Names{Paths: "inputs", Snapshots: "snapshots"}, Within: within})
	if err != nil {
		return failure(err)
	}
	opts := cfg.Options
	opts.Sources = sources
	out := eng(in, opts)
	for _, msg := range cfg.renamed {
		out.Results = append(out.Results, diag.Warnf(nil, "", "%s", msg))
	}
	if out.Results.HasErrors() {
		return out.Results, nil
	}
	return out.Results, items.answer(out.Objects, cfg.KeepInputs)
}

// EnvReadPaths lists folders, besides the working directory, that the paths of the
// functionConfig (inputs, catalogs, snapshots) may read, separated as PATH is. It is the
// pipeline owner's setting (the environment kustomize or kpt runs the function in), not the
// package's: the package's functionConfig may name only files below the working directory.
const EnvReadPaths = "ODLM_RENDER_FN_READ_PATHS"

// readRoots are the folders the functionConfig's paths may read, links followed: the working
// directory (where kpt and kustomize run the function), and EnvReadPaths' absolute folders.
func readRoots(getenv func(string) string) ([]string, error) {
	roots := []string{"."}
	for _, d := range filepath.SplitList(getenv(EnvReadPaths)) {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("%s: %q is not an absolute path", EnvReadPaths, d)
		}
		roots = append(roots, d)
	}
	return roots, nil
}

// failure is the answer to an error before the render: one error result, no item.
func failure(err error) (diag.Results, []outItem) {
	return diag.Results{{Severity: diag.Error, Message: err.Error()}}, nil
}

// sortedItems are a ResourceList's items by what the function does with them.
type sortedItems struct {
	// local items (Kptfiles, local-config, documents that are not objects) are kept as they
	// came; blobs are catalog data, kept with keepInputs
	local, blobs []*krm.Item
	// given are the resources and catalog blobs the render reads
	given inputs.Set
	// byObject is the item of each resource: one the render passes through is kept as it came
	byObject map[*manifest.Object]*krm.Item
}

// sortItems sorts the items into local ones, catalog data and resources.
func sortItems(items []*krm.Item) sortedItems {
	s := sortedItems{byObject: map[*manifest.Object]*krm.Item{}}
	for _, it := range items {
		obj := it.Object
		switch {
		case inputs.IsCatalogBlob(obj):
			s.blobs = append(s.blobs, it)
			s.given.CatalogBlobs = append(s.given.CatalogBlobs, obj)
		case inputs.IsLocal(obj) || obj.APIVersion() == "" || obj.Kind() == "":
			s.local = append(s.local, it)
		default:
			s.given.Resources = append(s.given.Resources, obj)
			s.byObject[obj] = it
		}
	}
	return s
}

// answer is the answer's items: local items first, then the render's output (an input the
// render passes through, with keepInputs, as it came), then (with keepInputs) the catalog
// data.
func (s sortedItems) answer(objs []*manifest.Object, keepInputs bool) []outItem {
	items := make([]outItem, 0, len(s.local)+len(objs)+len(s.blobs))
	for _, it := range s.local {
		items = append(items, outItem{kept: it})
	}
	for _, o := range objs {
		items = append(items, outItem{kept: s.byObject[o], obj: o})
	}
	if keepInputs {
		for _, it := range s.blobs {
			items = append(items, outItem{kept: it})
		}
	}
	return items
}

// withFileAnnotations gives a rendered object a stable file path: an object that took an
// input's place keeps that input's path and index; a new one goes to generatedPath.
func withFileAnnotations(o *manifest.Object) *manifest.Object {
	if o.Source.File != "" && o.Source.Index >= 0 { // (-1: a file kustomize's origin named)
		o.SetMetadataString("annotations", krm.PathAnnotation, o.Source.File)
		o.SetMetadataString("annotations", krm.IndexAnnotation, strconv.Itoa(o.Source.Index))
		return o
	}
	o.SetMetadataString("annotations", krm.PathAnnotation, generatedPath(o))
	return o
}

// generatedPath is odlm-rendered/<namespace or _cluster>/<kind>_<name>.yaml. The render
// refuses names the API server refuses; each part is made a plain file name all the same,
// so that no object can name a path outside odlm-rendered/.
func generatedPath(o *manifest.Object) string {
	ns := o.Namespace()
	if ns == "" {
		ns = "_cluster"
	}
	return fmt.Sprintf("%s/%s/%s.yaml", GeneratedDir, fileName(ns), fileName(strings.ToLower(o.Kind())+"_"+o.Name()))
}

// fileName is s as one path segment: separators and control characters become '_', and "."
// or ".." gains a leading '_'.
func fileName(s string) string {
	s = strings.Map(func(c rune) rune {
		if c == '/' || c == '\\' || !unicode.IsPrint(c) {
			return '_'
		}
		return c
	}, s)
	if s == "." || s == ".." || s == "" {
		return "_" + s
	}
	return s
}

func toResults(rs diag.Results) []krm.Result {
	out := make([]krm.Result, 0, len(rs))
	for _, r := range rs {
		out = append(out, krm.Result{
			Severity:    string(r.Severity),
			Message:     r.Message,
			ResourceRef: r.Object,
			Field:       r.Field,
			File:        r.File,
			Index:       max(r.Index, 0),
		})
	}
	return out
}

// readAnnotatedFile decodes the file an item's path annotation names, if it is a regular file
// (of at most fileread.MaxBytes) below the working directory, where kustomize and kpt run
// the function: the annotation is the input's to set, so /dev/zero, a FIFO or a file outside
// the package gives no line numbers rather than an endless, blocked or foreign read.
func readAnnotatedFile(path string) []*manifest.Object {
	if filepath.IsAbs(path) || !fileread.Inside(path, ".") {
		return nil
	}
	data, err := fileread.ReadFile(path)
	if err != nil {
		return nil
	}
	docs, _ := manifest.Decode(path, data)
	return docs
}

// fileLines finds, for a result about an item, the line of its field in the user's file: the
// item's path annotation names the file (relative to where kustomize or kpt runs the
// function) and its index annotation the document, so the message can read
// overlays/prod/registry.yaml:12 as the CLI's do. A file that cannot be read gives no line.
type fileLines map[string][]*manifest.Object

func (fl fileLines) of(r diag.Result) int {
	if r.File == "" || r.Line > 0 || r.Object == nil {
		return r.Line
	}
	docs, ok := fl[r.File]
	if !ok {
		docs = readAnnotatedFile(r.File)
		fl[r.File] = docs
	}
	key, field := r.Object.Key(), r.Field
	if r.At != nil { // placed at the field of another object (the OperandConfig it comes from)
		key, field = r.At.Object.Key(), r.At.Field
	}
	for _, d := range docs {
		// Index -1: the orchestrator named the file, not the document
		if (r.Index < 0 || d.Source.Index == r.Index) && d.Ref().Key() == key {
			return d.Source.LineOf(field)
		}
	}
	return 0
}
