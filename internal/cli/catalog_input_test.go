package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestRenderReadsACatalogSnapshotAmongItsPaths: the CatalogSnapshot `catalog extract`
// writes, given as a PATH of render (a file, stdin, in the manifests' folder, re-encoded as
// JSON) instead of --catalog, renders exactly as the FBC it was extracted from.
func TestRenderReadsACatalogSnapshotAmongItsPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	snap := filepath.Join(dir, "snapshot.yaml")
	code, _, stderr := run(t, "", "catalog", "extract", "--from", quickstart+"/catalog", "-o", snap)
	require.Equal(t, cli.ExitOK, code, stderr)
	snapYAML, err := os.ReadFile(snap)
	require.NoError(t, err)

	code, want, stderr := run(t, "", "render", quickstart+"/manifests", "--catalog", quickstart+"/catalog")
	require.Equal(t, cli.ExitOK, code, stderr)
	require.Contains(t, want, "kind: Subscription")

	folder := filepath.Join(dir, "all")
	require.NoError(t, os.MkdirAll(folder, 0o755))
	for _, name := range []string{"registry.yaml", "requests.yaml"} {
		b, err := os.ReadFile(filepath.Join(quickstart, "manifests", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(folder, name), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(folder, "catalog.yaml"), snapYAML, 0o644))

	objs, err := manifest.Decode(snap, snapYAML)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	asJSON, err := manifest.MarshalJSON(objs[0].Map)
	require.NoError(t, err)
	jsonFile := filepath.Join(dir, "snapshot.json")
	require.NoError(t, os.WriteFile(jsonFile, asJSON, 0o644))

	tests := []struct {
		name  string
		stdin string
		paths []string
	}{
		{"a file", "", []string{quickstart + "/manifests", snap}},
		{"the file first", "", []string{snap, quickstart + "/manifests"}},
		{"stdin", string(snapYAML), []string{quickstart + "/manifests", "-"}},
		{"in the manifests' folder", "", []string{folder}},
		{"JSON", "", []string{quickstart + "/manifests", jsonFile}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.stdin, append([]string{"render"}, tc.paths...)...)
			require.Equal(t, cli.ExitOK, code, stderr)
			assert.Empty(t, stderr)
			assert.Equal(t, want, out)
		})
	}

	// the same catalog given twice is one catalog, however it is spelt
	for _, args := range [][]string{
		{quickstart + "/manifests", snap, "--catalog", snap},
		{quickstart + "/manifests", "--catalog", snap, "--catalog", filepath.Dir(snap) + "/./" + filepath.Base(snap)},
		{quickstart + "/manifests", "--catalog", quickstart + "/catalog", "--catalog", quickstart + "/catalog/"},
	} {
		t.Run("given twice: "+strings.Join(args[1:], " "), func(t *testing.T) {
			code, out, stderr := run(t, "", append([]string{"render"}, args...)...)
			require.Equal(t, cli.ExitOK, code, stderr)
			assert.Empty(t, stderr)
			assert.NotEmpty(t, out)
		})
	}
}
