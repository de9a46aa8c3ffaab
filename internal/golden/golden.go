// Package golden owns the project's golden-directory tests: a case folder holds its inputs
// and an expected/ folder with one file per output object (NN_<kind>_<namespace>_<name>.yaml,
// in output order) and results.txt. Compare fails on missing, extra or different files;
// `go test ... -update` rewrites expected/ on purpose (read the diff before committing).
//
// A case's catalogs are paths, or "generated:NAME" for a catalog derived at test time rather
// than kept in git (internal/testfixture, e.g. generated:real-foundational-services):
// LoadCase replaces such an entry by the absolute path of the generated file, generating it
// on first use (CatalogPaths and CatalogPath then give every entry's path). ResolveCatalogs
// and CatalogPath do the same for the loaders of other case files (testdata/mirror).
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testfixture"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Update is the -update flag of every package that uses golden files.
var Update = flag.Bool("update", false, "rewrite golden files from the actual output")

// Files renders objects and result lines into the expected/ file set.
func Files(objs []*manifest.Object, results []string) (map[string]string, error) {
	files := map[string]string{}
	width := len(fmt.Sprint(len(objs)))
	if width < 2 {
		width = 2
	}
	for i, o := range objs {
		b, err := manifest.MarshalYAML(o.Map)
		if err != nil {
			return nil, err
		}
		ns := o.Namespace()
		if ns == "" {
			ns = "_"
		}
		name := fmt.Sprintf("%0*d_%s_%s_%s.yaml", width, i, strings.ToLower(o.Kind()), ns, o.Name())
		files[name] = string(b)
	}
	files["results.txt"] = strings.Join(results, "\n")
	if len(results) > 0 {
		files["results.txt"] += "\n"
	}
	return files, nil
}

// Compare checks dir against files, or rewrites dir with -update.
func Compare(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if *Update {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, content := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
		return
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "no expected output: run the test with -update and read the result")
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	var want []string
	for name := range files {
		want = append(want, name)
	}
	sort.Strings(have)
	sort.Strings(want)
	assert.Equal(t, have, want, "expected files in %s", dir)
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		assert.Equal(t, string(b), files[name], "%s/%s", dir, name)
	}
}

// Case is testdata/render/<case>/case.yaml: how a golden case is rendered. Its keys are the
// engine's options under their functionConfig names (render.Options), and the case's own
// catalogs and snapshots.
type Case struct {
	// Dir is the case folder.
	Dir string `json:"-"`
	// Catalogs are folders or files under testdata/catalogs, or "generated:NAME" in
	// case.yaml (the absolute path of that generated file once loaded).
	Catalogs []string `json:"catalogs,omitempty"`
	// Snapshots are files or folders relative to the case folder.
	Snapshots []string `json:"snapshots,omitempty"`
	render.Options
}

// SnapshotPaths returns the case's snapshot paths.
func (c Case) SnapshotPaths() []string {
	var out []string
	for _, p := range c.Snapshots {
		out = append(out, filepath.Join(c.Dir, p))
	}
	return out
}

// Cases lists the golden render cases under root (testdata/render).
func Cases(t testing.TB, root string) []Case {
	t.Helper()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		out = append(out, LoadCase(t, filepath.Join(root, e.Name())))
	}
	return out
}

// LoadCase reads the case in dir.
func LoadCase(t testing.TB, dir string) Case {
	t.Helper()
	c := Case{Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "case.yaml")); err == nil {
		require.NoError(t, yaml.UnmarshalStrict(b, &c), "%s/case.yaml", dir)
	}
	c.Dir = dir
	c.Catalogs = ResolveCatalogs(t, c.Catalogs)
	return c
}

// GeneratedPrefix marks a case file's catalog that internal/testfixture generates:
// "generated:NAME", NAME one of testfixture.Names().
const GeneratedPrefix = "generated:"

// ResolveCatalogs returns catalogs with each "generated:NAME" entry replaced by the absolute
// path of that generated file (generated when testdata/generated has none for its inputs);
// the other entries are kept as they are.
func ResolveCatalogs(t testing.TB, catalogs []string) []string {
	t.Helper()
	var out []string
	for _, p := range catalogs {
		if name, ok := strings.CutPrefix(p, GeneratedPrefix); ok {
			var err error
			p, err = testfixture.Path(name)
			require.NoError(t, err, "catalog %s", GeneratedPrefix+name)
		}
		out = append(out, p)
	}
	return out
}

// CatalogPath is a resolved catalog entry of a case file as a path: under root, or as it is
// when absolute (a generated catalog).
func CatalogPath(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// Request is what the loader reads for the case: its input folder, its catalogs (under
// catalogsRoot, or generated) and its snapshots.
func (c Case) Request(catalogsRoot string) inputs.Request {
	return inputs.Request{Paths: []string{c.Input()}, Catalogs: c.CatalogPaths(catalogsRoot), Snapshots: c.SnapshotPaths()}
}

// Load is the case's inputs and options, loaded as the front doors load theirs (inputs.Load).
func (c Case) Load(t testing.TB, req inputs.Request) (render.Inputs, render.Options) {
	t.Helper()
	in, sources, err := inputs.Load(req)
	require.NoError(t, err, "case %s", c.Name())
	opts := c.Options
	opts.Sources = sources
	return in, opts
}

// Name is the case folder's name.
func (c Case) Name() string { return filepath.Base(c.Dir) }

// Input is the case's input folder.
func (c Case) Input() string { return filepath.Join(c.Dir, "input") }

// CatalogPaths returns the case's catalog paths, given testdata/catalogs.
func (c Case) CatalogPaths(catalogsRoot string) []string {
	var out []string
	for _, p := range c.Catalogs {
		out = append(out, CatalogPath(catalogsRoot, p))
	}
	return out
}

// ExpectedYAML is the expected output as one "---" separated stream ("" for error cases).
func (c Case) ExpectedYAML(t testing.TB) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(c.Dir, "expected"))
	require.NoError(t, err)
	var docs []string
	for _, e := range entries {
		if e.Name() == "results.txt" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.Dir, "expected", e.Name()))
		require.NoError(t, err)
		docs = append(docs, string(b))
	}
	return strings.Join(docs, "---\n")
}

// ExpectedResults returns the lines of results.txt of one severity, without the
// "[severity] " prefix (paths are relative to the case folder).
func (c Case) ExpectedResults(t testing.TB, severity string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "expected", "results.txt"))
	require.NoError(t, err)
	var out []string
	prefix := "[" + severity + "] "
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, strings.TrimPrefix(line, prefix))
		}
	}
	return out
}

// ResultLines is every line of expected/results.txt ("[severity] text"), in order.
func (c Case) ResultLines(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "expected", "results.txt"))
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}
