package render_test

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// realCatalogs is the reference folder's copy of testdata/catalogs: real packages of the
// community and certified catalogs (tb skips without the reference folder).
func realCatalogs(tb testing.TB) string {
	tb.Helper()
	return refdata.Testdata(tb, "catalogs")
}

// fleet is a registry, its config and n OperandRequests, each in its own namespace, asking
// for every operator and defining one CR of its own.
func fleet(t testing.TB, n int) []*manifest.Object {
	return fleetOf(t, n, func(i int) string { return teamRequests(i, "") })
}

// bundledFleet is fleet(n) without the NVIDIA network operator: the fleet whose every
// operator has a real bundle (withContents), which --olm none can install.
func bundledFleet(t testing.TB, n int) []*manifest.Object {
	return fleetOf(t, n, func(i int) string {
		requests := teamRequests(i, "")
		out := strings.Replace(requests, "    - name: network\n", "", 1)
		require.NotEqual(t, requests, out)
		return out
	})
}

// fleetOf is the platform registry and config and n OperandRequests team-i, each in its own
// namespace, with the spec requests(i).
func fleetOf(t testing.TB, n int, requests func(i int) string) []*manifest.Object {
	platform, err := os.ReadFile("../../testdata/bench/fleet-platform.yaml")
	require.NoError(t, err)
	var b strings.Builder
	b.Write(platform)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "---\napiVersion: operator.ibm.com/v1alpha1\nkind: OperandRequest\nmetadata: {name: team-%[1]d, namespace: team-%[1]d}\nspec:\n", i)
		b.WriteString(requests(i))
	}
	objs, err := manifest.Decode("fleet.yaml", []byte(b.String()))
	require.NoError(t, err)
	return objs
}

// teamRequests is the spec.requests of team i's request, indented by indent: every
// operator of the fleet and one SleepInfo of its own.
func teamRequests(i int, indent string) string {
	text := fmt.Sprintf(`  requests:
  - registry: fleet
    registryNamespace: platform
    operands:
    - name: kube-green
    - name: nfs
    - name: network
    - name: kube-green
      apiVersion: kube-green.com/v1alpha1
      kind: SleepInfo
      spec: {weekdays: "1-5", sleepAt: "2%d:00"}
`, i%4)
	return indent + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+indent) + "\n"
}

// nestedFleet is the fleet of fleet(n) with every request one level deeper, as IBM's Keycloak
// service requests its database: team-i's OperandRequest asks for the userManaged operator
// app-i, whose OperandConfig service has one resource, an OperandRequest nested-i in
// namespace team-i with what fleet's team-i asks for. ODLM reconciles that nested request
// like an input (docs/semantics.md, Decided deviations: emitted ODLM objects are reconciled), so the output is fleet(n)'s plus the n nested requests.
func nestedFleet(t testing.TB, n int) []*manifest.Object {
	platform, err := os.ReadFile("../../testdata/bench/fleet-platform.yaml")
	require.NoError(t, err)
	var b strings.Builder
	b.Write(platform)
	b.WriteString("---\napiVersion: operator.ibm.com/v1alpha1\nkind: OperandRegistry\nmetadata: {name: apps, namespace: platform}\nspec:\n  operators:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: app-%d, packageName: team-app, channel: \"\", userManaged: true, scope: public}\n", i)
	}
	b.WriteString("---\napiVersion: operator.ibm.com/v1alpha1\nkind: OperandConfig\nmetadata: {name: apps, namespace: platform}\nspec:\n  services:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: app-%[1]d\n    resources:\n    - apiVersion: operator.ibm.com/v1alpha1\n      kind: OperandRequest\n      name: nested-%[1]d\n      namespace: team-%[1]d\n      data:\n        spec:\n", i)
		b.WriteString(teamRequests(i, "        "))
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: team-%[1]d, namespace: team-%[1]d}
spec:
  requests:
  - registry: apps
    registryNamespace: platform
    operands:
    - name: app-%[1]d
`, i)
	}
	objs, err := manifest.Decode("nested-fleet.yaml", []byte(b.String()))
	require.NoError(t, err)
	return objs
}

// BenchmarkRenderFleet renders 200 OperandRequests against the real catalog data of
// testdata/catalogs (read from the reference folder: realCatalogs).
func BenchmarkRenderFleet(b *testing.B) {
	cat, err := catalog.Load(realCatalogs(b))
	require.NoError(b, err)
	objs := fleet(b, 200)
	b.ReportAllocs()
	b.ResetTimer()
	var out render.Output
	for i := 0; i < b.N; i++ {
		out = render.Render(render.Inputs{Objects: objs, Catalog: cat}, render.Options{})
	}
	b.StopTimer()
	require.False(b, out.Results.HasErrors(), "%v", out.Results)
	b.ReportMetric(float64(len(out.Objects)), "objects")
}

// TestFleetsRenderEveryRequest checks what the benchmark fleets render: 3 Subscriptions
// shared by all requests; OperatorGroups in platform and nvidia; one SleepInfo per team plus
// the configured one; configured NFS and network CRs once, the NFS CR and ConfigMap with their
// templates resolved from the platform-sizing ConfigMap (an input, passed through); and, nested,
// the 20 OperandRequests the OperandConfig resources create.
func TestFleetsRenderEveryRequest(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(realCatalogs(t))
	require.NoError(t, err)
	flat := map[string]int{
		"Subscription": 3, "OperatorGroup": 2, "SleepInfo": 21, "NFSProvisioner": 1,
		"NicClusterPolicy": 1, "MacvlanNetwork": 1, "ConfigMap": 2,
	}
	nested := maps.Clone(flat)
	nested["OperandRequest"] = 20
	for _, tc := range []struct {
		name  string
		fleet func(testing.TB, int) []*manifest.Object
		want  map[string]int
	}{{"flat", fleet, flat}, {"nested", nestedFleet, nested}} {
		t.Run(tc.name, func(t *testing.T) {
			out := render.Render(render.Inputs{Objects: tc.fleet(t, 20), Catalog: cat}, render.Options{})
			require.False(t, out.Results.HasErrors(), "%v", out.Results)
			kinds := map[string]int{}
			templated := 0
			for _, o := range out.Objects {
				kinds[o.Kind()]++
				switch o.Kind() + "/" + o.Name() {
				case "NFSProvisioner/nfsprovisioner-sample":
					require.Equal(t, "20G", manifest.Get(o.Map, "spec", "storageSize"), "templated")
					require.Equal(t, true, manifest.Get(o.Map, "spec", "hostPathEnabled"), "templated by an expression")
					templated++
				case "ConfigMap/nfs-settings":
					require.Equal(t, "20G", manifest.Get(o.Map, "data", "storage"), "templated")
					templated++
				}
			}
			require.Equal(t, tc.want, kinds)
			require.Equal(t, 2, templated, "the templated objects were found")
		})
	}
}
