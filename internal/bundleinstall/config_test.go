package bundleinstall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	v, err := manifest.DecodeJSONValue([]byte(text))
	require.NoError(t, err)
	m, ok := v.(map[string]any)
	require.True(t, ok)
	return m
}

// TestApplyConfig checks each field of a Subscription's config as OLM applies it to a
// Deployment with two containers.
func TestApplyConfig(t *testing.T) {
	t.Parallel()
	const deployment = `{"metadata":{"name":"op","annotations":{"keep":"mine"}},"spec":{"template":{"metadata":{"annotations":{"keep":"mine"}},"spec":{
		"containers":[
			{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"envFrom":[{"configMapRef":{"name":"cm"}}],"volumeMounts":[{"name":"v","mountPath":"/v"}],"resources":{"limits":{"cpu":"1"}}},
			{"name":"b"}],
		"volumes":[{"name":"v","emptyDir":{}}],
		"tolerations":[{"key":"k","operator":"Exists"}],
		"nodeSelector":{"zone":"a"},
		"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"n","operator":"Exists"}]}]}},"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"t"}}]}}}}}}`
	for _, tc := range []struct {
		name, config string
		path         []string
		want         string
	}{
		{"env replaces by name and appends", `{"env":[{"name":"Y","value":"new"},{"name":"Z","value":"3"}]}`, []string{"spec", "template", "spec", "containers"},
			`[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"new"},{"name":"Z","value":"3"}],"envFrom":[{"configMapRef":{"name":"cm"}}],"volumeMounts":[{"name":"v","mountPath":"/v"}],"resources":{"limits":{"cpu":"1"}}},{"name":"b","env":[{"name":"Y","value":"new"},{"name":"Z","value":"3"}]}]`},
		{"envFrom appends what is not there", `{"envFrom":[{"configMapRef":{"name":"cm"}},{"secretRef":{"name":"s"}}]}`, []string{"spec", "template", "spec", "containers"},
			`[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"envFrom":[{"configMapRef":{"name":"cm"}},{"secretRef":{"name":"s"}}],"volumeMounts":[{"name":"v","mountPath":"/v"}],"resources":{"limits":{"cpu":"1"}}},{"name":"b","envFrom":[{"configMapRef":{"name":"cm"}},{"secretRef":{"name":"s"}}]}]`},
		{"resources replace every container's", `{"resources":{"requests":{"memory":"1Gi"}}}`, []string{"spec", "template", "spec", "containers"},
			`[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"envFrom":[{"configMapRef":{"name":"cm"}}],"volumeMounts":[{"name":"v","mountPath":"/v"}],"resources":{"requests":{"memory":"1Gi"}}},{"name":"b","resources":{"requests":{"memory":"1Gi"}}}]`},
		{"volumes replace by name", `{"volumes":[{"name":"v","secret":{"secretName":"s"}},{"name":"w","emptyDir":{}}]}`, []string{"spec", "template", "spec", "volumes"},
			`[{"name":"v","secret":{"secretName":"s"}},{"name":"w","emptyDir":{}}]`},
		{"tolerations append distinct", `{"tolerations":[{"key":"k","operator":"Exists"},{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]}`, []string{"spec", "template", "spec", "tolerations"},
			`[{"key":"k","operator":"Exists"},{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]`},
		{"nodeSelector replaces", `{"nodeSelector":{"disk":"ssd"}}`, []string{"spec", "template", "spec", "nodeSelector"}, `{"disk":"ssd"}`},
		{"empty affinity removes it", `{"affinity":{}}`, []string{"spec", "template", "spec", "affinity"}, `null`},
		{"an empty kind of affinity removes that kind", `{"affinity":{"nodeAffinity":{}}}`, []string{"spec", "template", "spec", "affinity"},
			`{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"t"}}]}}`},
		{"a kind of affinity replaces that kind", `{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"h"}]}}}`, []string{"spec", "template", "spec", "affinity", "podAntiAffinity"},
			`{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"h"}]}`},
		{"annotations never replace the pod's", `{"annotations":{"keep":"theirs","new":"v"}}`, []string{"spec", "template", "metadata", "annotations"}, `{"keep":"mine","new":"v"}`},
		{"annotations never replace the Deployment's", `{"annotations":{"keep":"theirs","new":"v"}}`, []string{"metadata", "annotations"}, `{"keep":"mine","new":"v"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := decode(t, deployment)
			require.NoError(t, applyConfig(d, decode(t, tc.config)))
			want, err := manifest.DecodeJSONValue([]byte(tc.want))
			require.NoError(t, err)
			assert.Equal(t, want, manifest.Get(d, tc.path...))
		})
	}
}

func TestApplyConfigLeavesTheInputAlone(t *testing.T) {
	t.Parallel()
	config := decode(t, `{"env":[{"name":"A","value":"1"}],"volumes":[{"name":"v","emptyDir":{}}]}`)
	d := decode(t, `{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`)
	require.NoError(t, applyConfig(d, config))
	manifest.Get(d, "spec", "template", "spec", "volumes").([]any)[0].(map[string]any)["name"] = "changed"
	assert.Equal(t, "v", manifest.Get(config["volumes"].([]any)[0], "name"), "the config is copied, not shared")
}

func TestObjectName(t *testing.T) {
	t.Parallel()
	long := "a-very-long-deployment-name-that-goes-on-and-on-and-on-beyond-limits"
	for _, tc := range []struct{ base, suffix, want string }{
		{"op", "service", "op-service"},
		{long, "service", long[:55] + "-service"},
	} {
		got := objectName(tc.base, tc.suffix)
		assert.Equal(t, tc.want, got)
		assert.LessOrEqual(t, len(got), maxNameLength)
	}
}

func TestModeOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "AllNamespaces", string(modeOf("op", []string{""})))
	assert.Equal(t, "OwnNamespace", string(modeOf("op", []string{"op"})))
	assert.Equal(t, "SingleNamespace", string(modeOf("op", []string{"apps"})))
	assert.Equal(t, "MultiNamespace", string(modeOf("op", []string{"op", "apps"})))
}
