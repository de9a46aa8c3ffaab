package render_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// scaleOperators is how many operators each fleet request asks for (kube-green,
// nfs-provisioner-operator and nvidia-network-operator from testdata/catalogs, read from the reference folder); each request
// also defines one SleepInfo of its own.
const scaleOperators = 3

// BenchmarkRenderScale renders N OperandRequests × scaleOperators operands, each request in
// its own namespace, for N = 10 … 10000. scripts/bench.sh divides ns/op, B/op and allocs/op
// by N × scaleOperators to show that the cost per operand stays flat.
//
// BenchmarkRenderScale/nested=N is the same fleet one level deeper (nestedFleet): each
// request's operands come from an OperandRequest that an OperandConfig resource creates, so
// the render takes two rounds. Both report ns per emitted object, to compare.
//
// BenchmarkRenderScale/olm-v0=N and /olm-none=N render the fleet whose installed operators
// all have real bundles (bundledFleet, withContents) for OLM v0 and with --olm none (the
// operators' own objects instead of Subscriptions), per emitted object.
func BenchmarkRenderScale(b *testing.B) {
	cat, err := catalog.Load(realCatalogs(b))
	require.NoError(b, err)
	validated, err := catalog.Load(realCatalogs(b))
	require.NoError(b, err)
	withContents(b, validated)
	plain := render.Options{OLM: render.OLMNone, WebhookCerts: "cert-manager"}
	for _, v := range []struct {
		name  string
		cat   *catalog.Catalog
		fleet func(testing.TB, int) []*manifest.Object
		opts  render.Options
	}{
		{"requests", cat, fleet, render.Options{}}, {"nested", cat, nestedFleet, render.Options{}}, {"validated", validated, fleet, render.Options{}},
		{"olm-v0", validated, bundledFleet, render.Options{}}, {"olm-none", validated, bundledFleet, plain},
	} {
		for _, n := range []int{10, 100, 1000, 10000} {
			benchScale(b, v.cat, v.name, n, v.fleet, v.opts)
		}
	}
}

// withContents gives the channel heads of kube-green and nfs-provisioner-operator the
// contents of their real bundles (testdata/bundles, read from the reference folder), so that the render checks their
// SleepInfos and NFSProvisioners against the real CRDs: the "validated" fleets measure what
// that costs against "requests".
func withContents(tb testing.TB, cat *catalog.Catalog) {
	tb.Helper()
	for pkg, dir := range map[string]string{"kube-green": "kube-green-0.7.1", "nfs-provisioner-operator": "nfs-provisioner-operator-0.0.9"} {
		c, err := fbc.ContentsFromFolder(refdata.Testdata(tb, "bundles/"+dir+"/manifests"))
		require.NoError(tb, err)
		p, ok := cat.Package(pkg)
		require.True(tb, ok, pkg)
		head, err := p.HeadBundle("")
		require.NoError(tb, err)
		head.Contents = c
	}
}

func benchScale(b *testing.B, cat *catalog.Catalog, name string, n int, makeFleet func(testing.TB, int) []*manifest.Object, opts render.Options) {
	{
		b.Run(fmt.Sprintf("%s=%d", name, n), func(b *testing.B) {
			objs := makeFleet(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			var out render.Output
			for i := 0; i < b.N; i++ {
				out = render.Render(render.Inputs{Objects: objs, Catalog: cat}, opts)
			}
			b.StopTimer()
			require.False(b, out.Results.HasErrors(), "%v", out.Results)
			operands := float64(n * scaleOperators)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/operands, "ns/operand")
			emitted := 0
			for _, o := range out.Objects {
				if out.Generated[o] {
					emitted++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(emitted), "ns/emitted")
			b.ReportMetric(float64(emitted), "emitted")
			b.ReportMetric(float64(len(out.Objects)), "objects")
		})
	}
}
