package olmresolve_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/olmresolve"
)

// TestProjectCatalogsServe: every catalog the project wrote (the examples' and the plan and
// mirror cases' own) is one opm serve serves, so that OLM would install from it.
func TestProjectCatalogsServe(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var dirs []string
	for _, pattern := range []string{"examples/*/catalog/*", "testdata/plan/*/catalog", "testdata/mirror/*/catalog", "testdata/render/real-foundational-services/catalog/rhbk-operator"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		dirs = append(dirs, matches...)
	}
	require.GreaterOrEqual(t, len(dirs), 8)
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			assert.NoError(t, olmresolve.Refusal(context.Background(), os.DirFS(dir)))
		})
	}
}

// TestRefusalNamesOpmsReason: catalogs opm serve refuses, with its reason.
func TestRefusalNamesOpmsReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, catalog, reason string }{
		{"a document without a schema", "# a comment-only document\n---\n{schema: olm.package, name: p}\n", "schema"},
		{"two heads", `{"schema":"olm.package","name":"p","defaultChannel":"c"}
{"schema":"olm.channel","package":"p","name":"c","entries":[{"name":"p.v1"},{"name":"p.v2"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1","image":"x","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v2","image":"y","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}}]}
`, "head"},
		{"an invalid skipRange", `{"schema":"olm.package","name":"p","defaultChannel":"c"}
{"schema":"olm.channel","package":"p","name":"c","entries":[{"name":"p.v1","skipRange":"not a range"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1","image":"x","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`, "skipRange"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte(tc.catalog), 0o644))
			err := olmresolve.Refusal(context.Background(), os.DirFS(dir))
			var refused *olmresolve.RefusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.Reason, tc.reason)
		})
	}
}
