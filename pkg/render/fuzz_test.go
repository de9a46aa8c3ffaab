package render_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/inputs"
	"github.com/odlm-render/odlm-render/pkg/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

var (
	fuzzCatalogOnce sync.Once
	fuzzCatalog     *catalog.Catalog
	fuzzCatalogErr  error
)

// fixedCatalog is the small real catalog every fuzz input renders against (loaded once;
// a Catalog is read-only, so sharing it is safe).
func fixedCatalog(t testing.TB) *catalog.Catalog {
	fuzzCatalogOnce.Do(func() {
		fuzzCatalog, fuzzCatalogErr = inputs.LoadCatalog([]string{
			"../../testdata/catalogs/community/kube-green",
			"../../testdata/catalogs/community/nfs-provisioner-operator",
		}, nil)
	})
	require.NoError(t, fuzzCatalogErr)
	return fuzzCatalog
}

// FuzzRender feeds one YAML stream of inputs to the engine. Whatever the input, Render
// must not panic, must not modify its inputs, and must give the same output for the
// documents in reverse order. FBC blobs in the stream make up the catalog instead of the
// fixed one. The seed corpus is every golden case's inputs.
func FuzzRender(f *testing.F) {
	for _, c := range golden.Cases(f, casesDir) {
		files, _ := filepath.Glob(filepath.Join(c.Input(), "*.yaml"))
		var stream []string
		for _, file := range files {
			b, err := os.ReadFile(file)
			require.NoError(f, err)
			stream = append(stream, string(b))
		}
		f.Add(strings.Join(stream, "\n---\n"))
	}
	f.Fuzz(func(t *testing.T, data string) {
		docs, err := manifest.Decode("fuzz.yaml", []byte(data))
		if err != nil {
			return
		}
		set, err := inputs.Classify(docs)
		if err != nil {
			return
		}
		cat := fixedCatalog(t)
		if len(set.CatalogBlobs) > 0 {
			if cat, err = inputs.LoadCatalog(nil, set.CatalogBlobs); err != nil {
				return
			}
		}
		opts := render.Options{DefaultNamespace: "default"}
		in := render.Inputs{Objects: set.Resources, Catalog: cat}
		before := dumpObjects(t, in.Objects)
		want := dump(t, render.Render(in, opts))
		require.Equal(t, before, dumpObjects(t, in.Objects), "Render modified its inputs")

		reversed := render.Inputs{Objects: slices.Clone(set.Resources), Catalog: cat}
		slices.Reverse(reversed.Objects)
		require.Equal(t, want, dump(t, render.Render(reversed, opts)), "output depends on input order")
	})
}
