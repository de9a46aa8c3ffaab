package render_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
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
	cfg := golden.LoadCase(t, dir)
	docs, err := inputs.ReadPaths([]string{filepath.Join(dir, "input")}, nil)
	require.NoError(t, err)
	if order != nil {
		order(docs)
	}
	set, err := inputs.Classify(docs)
	require.NoError(t, err)
	cat, err := inputs.LoadCatalog(cfg.CatalogPaths("../../testdata/catalogs"), set.CatalogBlobs)
	require.NoError(t, err)
	var sources cluster.Chain
	if len(cfg.Snapshots) > 0 {
		snap, err := inputs.LoadSnapshot(cfg.SnapshotPaths()...)
		require.NoError(t, err)
		sources = cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: snap}}
	}
	opts := cfg.Options
	opts.Sources = sources
	return render.Inputs{Objects: set.Resources, Catalog: cat}, opts
}

// resultLines prints results with their severity, with paths relative to the case folder
// (also inside messages, which may name a catalog file).
func resultLines(dir string, rs diag.Results) []string {
	prefix := filepath.ToSlash(dir) + "/"
	var lines []string
	for _, r := range rs {
		r.File = strings.TrimPrefix(r.File, prefix)
		r.Message = strings.ReplaceAll(r.Message, prefix, "")
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
			objs := out.Objects
			if out.Results.HasErrors() {
				objs = nil // front doors write nothing when there are errors
			}
			files, err := golden.Files(objs, resultLines(dir, out.Results))
			require.NoError(t, err)
			golden.Compare(t, filepath.Join(dir, "expected"), files)
		})
	}
}
