package render_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

var (
	fuzzCatalogOnce sync.Once
	fuzzCatalog     *catalog.Catalog
	fuzzCatalogErr  error
)

// fixedCatalog is the small real catalog every fuzz input without FBC blobs renders against
// (loaded once; a Catalog is read-only, so sharing it is safe). Its packages are read from
// the reference folder: t skips without it.
func fixedCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	paths := []string{ // resolved before the Once: a skip must not leave it done and empty
		refdata.Testdata(t, "catalogs/community/kube-green"),
		refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator"),
	}
	fuzzCatalogOnce.Do(func() {
		fuzzCatalog, fuzzCatalogErr = inputs.LoadCatalog(paths, nil)
		if fuzzCatalogErr == nil {
			// the heads carry their real bundles' CRDs: emitted SleepInfos and
			// NFSProvisioners go through the API server's checks
			withContents(t, fuzzCatalog)
		}
	})
	require.NoError(t, fuzzCatalogErr)
	return fuzzCatalog
}

// fuzzOptions turns fuzz bits into options, so that every mode is fuzzed: bind-info Secret
// modes, pending and Secret policies, pins, ordering, no-OLM, CatalogSource emission, kept
// inputs, explanations, OLM v1 (bit 15); bit 14 moves every other object into a snapshot
// source.
func fuzzOptions(bits uint16) (render.Options, bool) {
	opts := render.Options{DefaultNamespace: "default"}
	opts.BindInfoSecrets = []render.BindInfoMode{render.BindInfoCopy, render.BindInfoExternalSecrets, render.BindInfoSkip, ""}[bits&3]
	if bits&(1<<2) != 0 {
		opts.Pending = render.PendingError
	}
	if bits&(1<<3) != 0 {
		opts.Secrets = render.SecretsForbid
	}
	opts.Pin = bits&(1<<4) != 0
	opts.CheckPins = bits&(1<<5) != 0
	opts.ManualApproval = opts.Pin && bits&(1<<6) != 0
	opts.Ordering = []render.OrderingMode{"", render.OrderingArgoCD, render.OrderingKpt, ""}[bits>>7&3]
	opts.ODLMNoOLM = bits&(1<<9) != 0
	opts.EmitCatalogSources = bits&(1<<10) != 0
	opts.KeepInputs = bits&(1<<11) != 0
	opts.Explain = bits&(1<<12) != 0
	if bits&(1<<15) != 0 && !opts.ODLMNoOLM {
		// OLM v1, its installer RBAC, watchNamespace and SelfCertified updates (with the CRD
		// checks' defaults)
		opts.OLM, opts.OLMv1ServiceAccount, opts.OLMv1WatchNamespace, opts.OLMv1SelfCertified = render.OLMv1, true, true, true
		opts.CRDDefaults = opts.Explain
	}
	if bits&(1<<13) != 0 {
		opts.KubeVersion = "1.33.4"
	}
	return opts, bits&(1<<14) != 0
}

// FuzzRender feeds one YAML stream of inputs to the engine, with options from the fuzz
// bits. Whatever the input, Render must not panic, must not modify its inputs, and must give
// the same output for the documents in reverse order. FBC blobs in the stream make up the
// catalog instead of the fixed one. The seed corpus is every golden case's inputs under
// default and non-default options.
func FuzzRender(f *testing.F) {
	for i, c := range golden.Cases(f, casesDir) {
		if !c.Runnable() {
			continue // its inputs are partly reference data, absent here
		}
		var files []string
		for _, p := range c.InputPaths(f) { // input/ and the case's other inputs
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				files = append(files, p)
				continue
			}
			more, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			files = append(files, more...)
		}
		var stream []string
		for _, file := range files {
			b, err := os.ReadFile(file)
			require.NoError(f, err)
			stream = append(stream, string(b))
		}
		data := strings.Join(stream, "\n---\n")
		f.Add(data, uint16(0))
		f.Add(data, uint16(i*7919)) // a spread of option sets over the cases
		f.Add(data, uint16(1|1<<14))
		f.Add(data, uint16(1<<15|1<<4|1<<7))
	}
	f.Fuzz(func(t *testing.T, data string, bits uint16) {
		docs, err := manifest.Decode("fuzz.yaml", []byte(data))
		if err != nil {
			return
		}
		set, err := inputs.Classify(docs)
		if err != nil {
			return
		}
		var cat *catalog.Catalog
		if len(set.CatalogBlobs) > 0 {
			if cat, err = inputs.LoadCatalog(nil, set.CatalogBlobs); err != nil {
				return
			}
		} else {
			cat = fixedCatalog(t)
		}
		opts, snapshot := fuzzOptions(bits)
		objects := set.Resources
		if snapshot {
			var snap []*manifest.Object
			objects = nil
			for i, o := range set.Resources {
				if i%2 == 1 {
					snap = append(snap, o)
				} else {
					objects = append(objects, o)
				}
			}
			opts.Sources = cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: cluster.NewSnapshot(snap)}}
		}
		in := render.Inputs{Objects: objects, Catalog: cat}
		before := dumpObjects(t, in.Objects)
		want := dump(t, render.Render(in, opts))
		require.Equal(t, before, dumpObjects(t, in.Objects), "Render modified its inputs")

		reversed := render.Inputs{Objects: slices.Clone(objects), Catalog: cat}
		slices.Reverse(reversed.Objects)
		require.Equal(t, want, dump(t, render.Render(reversed, opts)), "output depends on input order")
	})
}
