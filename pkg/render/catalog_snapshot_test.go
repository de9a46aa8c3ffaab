package render_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestCatalogSnapshotAmongInputsRendersLikeTheFBC: the golden case whose catalog is a
// CatalogSnapshot among its inputs renders exactly as its other inputs do with the FBC the
// snapshot was extracted from (testdata/catalogs, package kube-green, in the reference folder) as the catalog, with
// the case's options and a few others that read the catalog.
func TestCatalogSnapshotAmongInputsRendersLikeTheFBC(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(casesDir, "catalog-snapshot-among-inputs")
	withSnapshot, caseOpts := loadCase(t, dir)
	require.NotNil(t, withSnapshot.Catalog, "the snapshot among the inputs is the catalog")

	docs, err := inputs.ReadPaths([]string{filepath.Join(dir, "input", "odlm.yaml")}, nil)
	require.NoError(t, err)
	set, err := inputs.Classify(docs)
	require.NoError(t, err)
	require.Empty(t, set.CatalogBlobs)
	fbc, err := inputs.LoadCatalog([]string{refdata.Testdata(t, "catalogs/community/kube-green")}, nil)
	require.NoError(t, err)
	withFBC := render.Inputs{Objects: set.Resources, Catalog: fbc}

	tests := []struct {
		name   string
		modify func(*render.Options)
	}{
		{"case options", func(*render.Options) {}},
		{"no pin", func(o *render.Options) { o.Pin = false }},
		{"manual approval", func(o *render.Options) { o.ManualApproval = true }},
		{"keep inputs", func(o *render.Options) { o.KeepInputs = true }},
		{"no OLM", func(o *render.Options) { o.ODLMNoOLM = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := caseOpts
			tc.modify(&opts)
			want := dump(t, render.Render(withFBC, opts))
			assert.Equal(t, want, dump(t, render.Render(withSnapshot, opts)))
		})
	}
}
