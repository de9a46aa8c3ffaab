package plan_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

var (
	fuzzOnce    sync.Once
	fuzzCatalog *catalog.Catalog
	fuzzErr     error
)

// fuzzInstalls are installs of the heads of kube-green (whose catalog carries the bundle's
// CRDs and permissions) and koku-metrics-operator (35 bundles), from a catalog of the
// folders given loaded once.
func fuzzInstalls(t *testing.T, catalogs []string) (*catalog.Catalog, []render.Install) {
	fuzzOnce.Do(func() {
		fuzzCatalog, fuzzErr = inputs.LoadCatalog(catalogs, nil)
	})
	require.NoError(t, fuzzErr)
	return fuzzCatalog, []render.Install{
		install(t, fuzzCatalog, "kube-green", "kube-green", "alpha"),
		install(t, fuzzCatalog, "costs", kokuPkg, "beta"),
	}
}

// FuzzBuild: a cluster export is untrusted input. Whatever objects it holds (the plan cases'
// clusters, mutated), Build either answers or returns an error, never panics, and its three
// writers write the answer (the JSON valid).
func FuzzBuild(f *testing.F) {
	catalogs := []string{kubeGreen(f), koku(f)}
	files, err := filepath.Glob("../../testdata/plan/*/snapshot/*.yaml")
	require.NoError(f, err)
	for i, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(string(b), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data string, bits uint8) {
		docs, err := manifest.Decode("fuzz.yaml", []byte(data))
		if err != nil {
			return
		}
		cat, installs := fuzzInstalls(t, catalogs)
		req := plan.Request{Installs: installs, Catalogs: catalog.Set{Plain: cat}, Cluster: cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: cluster.NewSnapshot(docs)}},
			OLMv1: bits&1 != 0}
		if bits&2 != 0 {
			req.KubeVersion, req.OpenShiftVersion = "1.31.2", "4.18"
		}
		if bits&4 != 0 {
			for _, d := range docs {
				req.Rendered = append(req.Rendered, d.Map)
			}
		}
		p, err := plan.Build(req)
		if err != nil {
			require.NotEmpty(t, strings.TrimSpace(err.Error()))
			return
		}
		b, err := p.JSON()
		require.NoError(t, err)
		require.True(t, json.Valid(b))
		p.Text()
		p.Markdown()
	})
}
