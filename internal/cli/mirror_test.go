package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

const (
	// testdataRoot is what a mirror case's paths are relative to, and what stderr.txt's
	// paths are written relative to
	testdataRoot = "../../testdata"
	mirrorData   = testdataRoot + "/mirror"
)

// mirrorCase is testdata/mirror/<case>/case.yaml: what `odlm-render mirror` is given besides
// the case's own input/ folder. Paths are relative to testdata/, or "reference:PATH" for a
// file of the reference folder (internal/refdata); loadMirrorCase resolves them.
type mirrorCase struct {
	// Inputs are more PATHs after input/ (another case's input folder, IBM's registry)
	Inputs []string `json:"inputs,omitempty"`
	// Catalogs and Snapshots are --catalog and --snapshot PATHs; a catalog may be
	// "generated:NAME" (golden.ResolveCatalogs)
	Catalogs  []string `json:"catalogs,omitempty"`
	Snapshots []string `json:"snapshots,omitempty"`
	// Args are the other flags, as written on a command line (-o is the test's)
	Args []string `json:"args,omitempty"`
}

// loadMirrorCase reads dir/case.yaml strictly, its paths resolved: under testdata/, or in
// the reference folder (t skips without it).
func loadMirrorCase(t *testing.T, dir string) mirrorCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "case.yaml"))
	require.NoError(t, err)
	var c mirrorCase
	require.NoError(t, yaml.UnmarshalStrict(b, &c), "%s/case.yaml", dir)
	c.Catalogs = catalogPaths(t, c.Catalogs)
	c.Inputs = testdataPaths(t, c.Inputs)
	c.Snapshots = testdataPaths(t, c.Snapshots)
	return c
}

// catalogPaths resolves a case file's catalogs: "generated:NAME" and "reference:PATH" to
// their files (golden.ResolveCatalogs: t skips without the reference folder), the others
// under testdata/.
func catalogPaths(t *testing.T, entries []string) []string {
	t.Helper()
	var out []string
	for _, p := range golden.ResolveCatalogs(t, entries) {
		out = append(out, golden.CatalogPath(testdataRoot, p))
	}
	return out
}

// testdataPaths resolves a case file's entries: "reference:PATH" in the reference folder (t
// skips without it), the others under testdata/.
func testdataPaths(t *testing.T, entries []string) []string {
	t.Helper()
	var out []string
	for _, p := range entries {
		if path, ok := refdata.Resolve(t, p); ok {
			out = append(out, path)
			continue
		}
		out = append(out, filepath.Join(testdataRoot, p))
	}
	return out
}

// args is the command line of the case in dir, writing into out.
func (c mirrorCase) args(dir, out string) []string {
	args := append([]string{"mirror", filepath.Join(dir, "input")}, c.Inputs...)
	for _, p := range c.Catalogs {
		args = append(args, "--catalog", p)
	}
	for _, p := range c.Snapshots {
		args = append(args, "--snapshot", p)
	}
	return append(append(args, c.Args...), "-o", out)
}

// relativeStderr writes the paths of a command's stderr as the expected files do: relative
// to the repository ("../../" dropped), a reference folder's file as "reference:PATH".
func relativeStderr(stderr string) string {
	return golden.Relative(stderr, "../..")
}

// readFiles is every file in dir by name.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	return files
}

// mirrorCaseDirs lists the case folders of testdata/mirror.
func mirrorCaseDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(mirrorData)
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(mirrorData, e.Name()))
		}
	}
	return dirs
}

// TestMirrorGoldenCases runs every testdata/mirror/<case> through the command line: exit 0,
// nothing on stdout, and expected/ holds every file the command writes into -o DIR (no
// other: no temporary file is left) and stderr.txt, the warnings and the summary, with paths
// relative to testdata's parent (a reference folder's file: "reference:PATH"). `go test ./internal/cli -run TestMirrorGoldenCases -update`
// rewrites expected/ (read the diff).
func TestMirrorGoldenCases(t *testing.T) {
	t.Parallel()
	dirs := mirrorCaseDirs(t)
	require.GreaterOrEqual(t, len(dirs), 5)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			c := loadMirrorCase(t, dir)
			out := filepath.Join(t.TempDir(), "mirror")
			code, stdout, stderr := run(t, "", c.args(dir, out)...)
			require.Equal(t, cli.ExitOK, code, stderr)
			assert.Empty(t, stdout)
			files := readFiles(t, out)
			assert.Contains(t, files, "imageset-config.yaml")
			files["stderr.txt"] = relativeStderr(stderr)
			golden.Compare(t, filepath.Join(dir, "expected"), files)
		})
	}
}

// TestMirrorUsage: wrong usage exits 2 and writes nothing.
func TestMirrorUsage(t *testing.T) {
	t.Parallel()
	input := filepath.Join(mirrorData, "pin-and-older-channel", "input")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no path", []string{"-o", "OUT"}, "mirror needs at least one PATH"},
		{"no output folder", []string{input}, "mirror needs -o DIR"},
		{"unknown format", []string{input, "-o", "OUT", "--format", "yaml"}, `--format "yaml": text or json`},
		{"unknown flag", []string{input, "-o", "OUT", "--mirror-to", "x"}, "unknown flag: --mirror-to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "mirror")
			args := append([]string{"mirror"}, tc.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, stdout, stderr := run(t, "", args...)
			assert.Equal(t, cli.ExitUsage, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.NoDirExists(t, out)
		})
	}
}

// TestMirrorErrorsWriteNothing: a render with errors exits 1 and writes no file, not even
// the folder.
func TestMirrorErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "mirror")
	code, stdout, stderr := run(t, "", "mirror", filepath.Join(testdataRoot, "render", "duplicate-operator-names-is-an-error", "input"),
		"--catalog", quickstart+"/catalog", "-o", out)
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "error")
	assert.NoDirExists(t, out)
}

// TestMirrorRewritesItsFiles: a second run into the same folder replaces the files it
// writes, removes those of its kind it does not write now (an earlier run's images.json),
// and leaves the folder's other files alone.
func TestMirrorRewritesItsFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(mirrorData, "catalogsource-among-inputs-and-one-missing")
	c := loadMirrorCase(t, dir)
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "images.txt"), []byte("stale\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.md"), []byte("mine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "images.json"), []byte("{}\n"), 0o644))
	for range 2 {
		code, _, stderr := run(t, "", c.args(dir, out)...)
		require.Equal(t, cli.ExitOK, code, stderr)
	}
	files := readFiles(t, out)
	want := readFiles(t, filepath.Join(dir, "expected"))
	delete(want, "stderr.txt")
	want["notes.md"] = "mine\n"
	assert.Equal(t, want, files)
}

// TestMirrorWritesEveryFileOrNone: a file the command writes that cannot be replaced (a
// folder of its name) is an error naming it, and no other file is written.
func TestMirrorWritesEveryFileOrNone(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(mirrorData, "catalogsource-among-inputs-and-one-missing")
	c := loadMirrorCase(t, dir)
	out := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(out, "mirror-sets.yaml"), 0o755))
	code, stdout, stderr := run(t, "", c.args(dir, out)...)
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, filepath.Join(out, "mirror-sets.yaml")+" is a folder")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing but the folder")
	assert.Equal(t, "mirror-sets.yaml", entries[0].Name())
}
