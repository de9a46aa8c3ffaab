// Package golden owns the project's golden-directory tests: a case folder holds its inputs
// and an expected/ folder with one file per output object (NN_<kind>_<namespace>_<name>.yaml,
// in output order) and results.txt. Compare fails on missing, extra or different files;
// `go test ... -update` rewrites expected/ on purpose (read the diff before committing).
//
// A case's catalogs, snapshots and extra inputs are paths; "reference:PATH" for real
// third-party data the repository does not hold, read from the reference-data folder
// (internal/refdata); or, for catalogs, "generated:NAME" for a catalog derived at test time
// rather than kept in git (internal/testfixture, e.g. generated:real-foundational-services).
// LoadCase keeps the entries as written; CatalogPaths, SnapshotPaths, InputPaths and Request
// resolve them for one test, which skips when the reference data is absent (fails with
// ODLM_RENDER_REQUIRE_TOOLS=1). ResolveCatalogs and CatalogPath do the same for the loaders
// of other case files (testdata/mirror, testdata/plan).
package golden

import (
	"errors"
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
	"github.com/odlm-render/odlm-render/internal/refdata"
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
// catalogs, snapshots and extra inputs, as written (see the package comment).
type Case struct {
	// Dir is the case folder.
	Dir string `json:"-"`
	// Catalogs are folders or files relative to testdata/catalogs, "reference:PATH" or
	// "generated:NAME".
	Catalogs []string `json:"catalogs,omitempty"`
	// Snapshots are files or folders relative to the case folder, or "reference:PATH".
	Snapshots []string `json:"snapshots,omitempty"`
	// Inputs are more input files or folders besides input/: relative to the case folder,
	// or "reference:PATH" (third-party ODLM configurations).
	Inputs []string `json:"inputs,omitempty"`
	render.Options
}

// NeedsReference says whether the case reads the reference-data folder (directly, or
// through a generated catalog derived from it).
func (c Case) NeedsReference() bool {
	for _, list := range [][]string{c.Catalogs, c.Snapshots, c.Inputs} {
		for _, p := range list {
			if strings.HasPrefix(p, refdata.Prefix) || strings.HasPrefix(p, GeneratedPrefix) {
				return true
			}
		}
	}
	return false
}

// Runnable says whether the case can run here: it needs no reference data, or the
// reference folder exists. Loops that do not run a test per case (fuzz seeds) use it.
func (c Case) Runnable() bool { return !c.NeedsReference() || refdata.Available() }

// SnapshotPaths returns the case's snapshot paths (t skips without reference data).
func (c Case) SnapshotPaths(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, p := range c.Snapshots {
		out = append(out, c.local(t, p))
	}
	return out
}

// InputPaths returns the case's input folder and its extra inputs (t skips without
// reference data).
func (c Case) InputPaths(t testing.TB) []string {
	t.Helper()
	out := []string{c.Input()}
	for _, p := range c.Inputs {
		out = append(out, c.local(t, p))
	}
	return out
}

// local resolves an entry relative to the case folder, or in the reference folder.
func (c Case) local(t testing.TB, p string) string {
	t.Helper()
	if path, ok := refdata.Resolve(t, p); ok {
		return path
	}
	return filepath.Join(c.Dir, p)
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

// LoadCase reads the case in dir; its entries stay as written.
func LoadCase(t testing.TB, dir string) Case {
	t.Helper()
	c := Case{Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "case.yaml")); err == nil {
		require.NoError(t, yaml.UnmarshalStrict(b, &c), "%s/case.yaml", dir)
	}
	c.Dir = dir
	return c
}

// GeneratedPrefix marks a case file's catalog that internal/testfixture generates:
// "generated:NAME", NAME one of testfixture.Names().
const GeneratedPrefix = "generated:"

// ResolveCatalogs returns catalogs with each "generated:NAME" entry replaced by the absolute
// path of that generated file (generated when testdata/generated has none for its inputs)
// and each "reference:PATH" by the reference folder's file; t skips when the reference data
// is absent. The other entries are kept as they are.
func ResolveCatalogs(t testing.TB, catalogs []string) []string {
	t.Helper()
	var out []string
	for _, p := range catalogs {
		source, p := cutSourceName(p)
		if name, ok := strings.CutPrefix(p, GeneratedPrefix); ok {
			var err error
			p, err = testfixture.Path(name)
			if errors.Is(err, refdata.ErrMissing) {
				refdata.Skip(t, err)
			}
			require.NoError(t, err, "catalog %s", GeneratedPrefix+name)
		}
		p, _ = refdata.Resolve(t, p)
		out = append(out, source+p)
	}
	return out
}

// cutSourceName splits "NAME=PATH" (a catalog that is the content of CatalogSource NAME,
// inputs.SplitNamedPath) into "NAME=" and PATH; other entries are all PATH.
func cutSourceName(entry string) (string, string) {
	if before, after, ok := strings.Cut(entry, "="); ok {
		if _, named := inputs.ParseSourceName(before, "global"); named {
			return before + "=", after
		}
	}
	return "", entry
}

// CatalogPath is a resolved catalog entry of a case file as a path: under root, or as it is
// when absolute (a generated or reference catalog).
func CatalogPath(root, entry string) string {
	source, p := cutSourceName(entry)
	if filepath.IsAbs(p) {
		return entry
	}
	return source + filepath.Join(root, p)
}

// Request is what the loader reads for the case: its inputs, its catalogs (under
// catalogsRoot, generated or reference) and its snapshots.
func (c Case) Request(t testing.TB, catalogsRoot string) inputs.Request {
	t.Helper()
	return inputs.Request{Paths: c.InputPaths(t), Catalogs: c.CatalogPaths(t, catalogsRoot), Snapshots: c.SnapshotPaths(t),
		GlobalCatalogNamespace: c.GlobalNamespace()}
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

// CatalogPaths returns the case's catalog paths, given testdata/catalogs (t skips without
// reference data).
func (c Case) CatalogPaths(t testing.TB, catalogsRoot string) []string {
	t.Helper()
	var out []string
	for _, p := range ResolveCatalogs(t, c.Catalogs) {
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

// Relative rewrites the paths text names as the expected files write them: relative to the
// case folder dir, and a reference-data file as "reference:PATH".
func Relative(text, dir string) string {
	text = strings.ReplaceAll(text, filepath.ToSlash(dir)+"/", "")
	if root, err := refdata.Root(); err == nil {
		text = strings.ReplaceAll(text, filepath.ToSlash(root)+"/", refdata.Prefix)
	}
	return text
}
