package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

func TestFirstDifferenceNamesTheFirstDifferingFieldInKeyOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		a, b    any
		want    string
		differs bool
	}{
		{"equal trees", map[string]any{"spec": map[string]any{"x": []any{"a"}}}, map[string]any{"spec": map[string]any{"x": []any{"a"}}}, "", false},
		{"a changed scalar", map[string]any{"spec": map[string]any{"operators": []any{map[string]any{"channel": "v4.18"}}}}, map[string]any{"spec": map[string]any{"operators": []any{map[string]any{"channel": "v4.17"}}}}, "spec.operators[0].channel", true},
		{"a key only one side has, in key order", map[string]any{"b": "1", "c": "2"}, map[string]any{"a": "0", "b": "1", "c": "3"}, "a", true},
		{"a longer list: the first extra index", map[string]any{"l": []any{"x"}}, map[string]any{"l": []any{"x", "y"}}, "l[1]", true},
		{"a map against a scalar", map[string]any{"m": map[string]any{}}, map[string]any{"m": "s"}, "m", true},
		{"a key with dots is quoted", map[string]any{"annotations": map[string]any{"a.b/c": "1"}}, map[string]any{"annotations": map[string]any{"a.b/c": "2"}}, `annotations["a.b/c"]`, true},
		{"numbers compare by value", map[string]any{"n": 1}, map[string]any{"n": 1.0}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, differs := firstDifference(tc.a, tc.b, "")
			assert.Equal(t, tc.differs, differs)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestComparableDefaultsForceAsTheAPIServerStoresIt(t *testing.T) {
	t.Parallel()
	cfg := func(resource map[string]any) *manifest.Object {
		return manifest.New(map[string]any{"apiVersion": "operator.ibm.com/v1alpha1", "kind": "OperandConfig",
			"metadata": map[string]any{"name": "c", "namespace": "ns", "uid": "x"},
			"spec":     map[string]any{"services": []any{map[string]any{"name": "s", "resources": []any{resource}}}}})
	}
	input := cfg(map[string]any{"kind": "ConfigMap", "name": "a"})
	stored := cfg(map[string]any{"kind": "ConfigMap", "name": "a", "force": true})
	_, differs := firstDifference(decidingFields(input), decidingFields(stored), "")
	assert.False(t, differs)
	assert.NotContains(t, input.Map["spec"].(map[string]any)["services"].([]any)[0].(map[string]any)["resources"].([]any)[0], "force", "the input is not modified")
	_, differs = firstDifference(decidingFields(cfg(map[string]any{"kind": "ConfigMap", "name": "a", "force": false})), decidingFields(stored), "")
	assert.True(t, differs)
}

func TestRegistryFromTheClusterIsReadOnlyAndItsErrorsAreGivenOnce(t *testing.T) {
	t.Parallel()
	decode := func(t *testing.T, text string) []*manifest.Object {
		objs, err := manifest.Decode("t.yaml", []byte(text))
		require.NoError(t, err)
		return objs
	}
	request := `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: r, namespace: cs}
spec:
  requests:
  - {registry: common-service, operands: [{name: a}]}
  - {registry: common-service, operands: [{name: b}]}
`
	for _, tc := range []struct {
		name, snapshot string
		want           []string
	}{
		{"a spec that does not decode: one error, not 'not found'", `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec: {operators: not-a-list}
`, []string{"spec.operators"}},
		{"an operand the cluster's registry lacks names where the registry was read", `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: a, packageName: a, channel: v1, sourceName: c, sourceNamespace: olm}
`, []string{`operator "b" is not in OperandRegistry cs/common-service (read from the snapshot)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := cluster.NewSnapshot(decode(t, tc.snapshot))
			out := Render(Inputs{Objects: decode(t, request)}, Options{Sources: cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: snap}}})
			var errs []string
			for _, res := range out.Results.Errors() {
				if !strings.Contains(res.Message, "no operands are rendered") {
					errs = append(errs, res.String())
				}
			}
			require.Len(t, errs, len(tc.want), "%v", errs)
			for i, w := range tc.want {
				assert.Contains(t, errs[i], w)
				assert.NotContains(t, errs[i], "not found")
			}
			for _, o := range out.Objects {
				assert.NotEqual(t, "OperandRegistry", o.Kind(), "a registry read from the cluster is never emitted")
			}
		})
	}
}

func TestABrokenInputRegistryIsNotReplacedByTheClusters(t *testing.T) {
	t.Parallel()
	objs, err := manifest.Decode("in.yaml", []byte(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec: {operators: not-a-list}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: r, namespace: cs}
spec:
  requests:
  - {registry: common-service, operands: [{name: a}]}
`))
	require.NoError(t, err)
	snapshot, err := manifest.Decode("snap.yaml", []byte(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: a, packageName: a, channel: v1, sourceName: c, sourceNamespace: olm}
`))
	require.NoError(t, err)
	out := Render(Inputs{Objects: objs}, Options{Sources: cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: cluster.NewSnapshot(snapshot)}}})
	require.True(t, out.Results.HasErrors())
	for _, o := range out.Objects {
		assert.NotEqual(t, "Subscription", o.Kind(), "the input comes first: the cluster's registry does not stand in for a broken one")
	}
}
