package render_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/output"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const casesDir = "../../testdata/render"

func loadCase(t testing.TB, dir string) (render.Inputs, render.Options) {
	return loadCaseOrdered(t, dir, nil)
}

// loadCaseOrdered is loadCase with the input documents (objects and catalog blobs)
// reordered by order first, when it is not nil.
func loadCaseOrdered(t testing.TB, dir string, order func([]*manifest.Object)) (render.Inputs, render.Options) {
	t.Helper()
	c := golden.LoadCase(t, dir)
	req := c.Request(t, "../../testdata/catalogs")
	if order != nil {
		docs, err := inputs.ReadPaths(req.Paths, nil)
		require.NoError(t, err)
		order(docs)
		req.Given, err = inputs.Classify(docs)
		require.NoError(t, err)
		req.Paths = nil
	}
	return c.Load(t, req)
}

// resultLines prints results with their severity, with paths relative to the case folder
// (also inside messages, which may name a catalog file).
func resultLines(dir string, rs diag.Results) []string {
	var lines []string
	for _, r := range rs {
		r.File = golden.Relative(r.File, dir)
		r.Message = golden.Relative(r.Message, dir)
		lines = append(lines, "["+string(r.Severity)+"] "+r.String())
	}
	return lines
}

func TestGolden(t *testing.T) {
	for _, c := range golden.Cases(t, casesDir) {
		dir := c.Dir
		t.Run(c.Name(), func(t *testing.T) {
			in, opts := loadCase(t, dir)
			out := render.Render(in, opts)
			files, err := golden.Files(output.Written(out.Objects, out.Results), resultLines(dir, out.Results))
			require.NoError(t, err)
			golden.Compare(t, filepath.Join(dir, "expected"), files)
		})
	}
}
