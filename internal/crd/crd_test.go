package crd_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// sleepInfoRef is kube-green v0.7.1's SleepInfo CRD, from its bundle in
// community-operators-prod (catalogs/v4.16, olm.bundle.object): third-party, read from the
// reference folder (internal/refdata).
const sleepInfoRef = "catalogs-community-v4.16-extracted-bundles/kube-green.v0.7.1/manifests/00-customresourcedefinition-sleepinfos.kube-green.com.yaml"

// routeCRD is OpenShift's Route CRD, which the project's platform data holds.
const routeCRD = "../platform/openshift/routes.crd.yaml"

// sleepInfo is kube-green's real SleepInfo CRD (t skips without the reference folder).
func sleepInfo(t testing.TB) *crd.Definition {
	t.Helper()
	return load(t, refdata.Path(t, sleepInfoRef))
}

func load(t testing.TB, path string) *crd.Definition {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(data, &m))
	d, err := crd.Parse(m)
	require.NoError(t, err)
	return d
}

func obj(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &m))
	return m
}

// TestRealCRDs checks objects against real CRDs the way the API server does on create:
// kube-green's SleepInfo (from its bundle in community-operators-prod) and OpenShift's Route
// (openshift/api, with x-kubernetes-validations rules).
func TestRealCRDs(t *testing.T) {
	t.Run("SleepInfo's names", func(t *testing.T) {
		sleepInfo := sleepInfo(t)
		assert.Equal(t, "kube-green.com", sleepInfo.Group)
		assert.Equal(t, "SleepInfo", sleepInfo.Kind)
		assert.True(t, sleepInfo.Namespaced)
		assert.Equal(t, []string{"v1alpha1"}, sleepInfo.Versions())
	})
	route := func(t testing.TB) *crd.Definition { return load(t, routeCRD) }

	for _, tc := range []struct {
		name     string
		def      func(testing.TB) *crd.Definition // read in the subtest (SleepInfo's may skip)
		object   string
		pruned   []string
		problems []string
		notServd bool
	}{
		{name: "valid", def: sleepInfo, object: `
apiVersion: kube-green.com/v1alpha1
kind: SleepInfo
metadata: {name: a, namespace: ns}
spec: {weekdays: "1-5", sleepAt: "20:00", timeZone: Europe/Rome}`},
		{name: "wrong type is refused", def: sleepInfo, object: `
apiVersion: kube-green.com/v1alpha1
kind: SleepInfo
metadata: {name: a, namespace: ns}
spec: {weekdays: 5, sleepAt: "20:00"}`,
			problems: []string{`spec.weekdays: Invalid value: must be of type string: "integer"`}},
		{name: "a misspelt field is pruned", def: sleepInfo, object: `
apiVersion: kube-green.com/v1alpha1
kind: SleepInfo
metadata: {name: a, namespace: ns, lables: {x: y}}
spec: {weekdays: "1-5", sleepAt: "20:00", wekdays: "1"}
status: {}`,
			pruned: []string{"metadata.lables", "spec.wekdays"}},
		{name: "a version the CRD does not serve", def: sleepInfo, object: `
apiVersion: kube-green.com/v1
kind: SleepInfo
metadata: {name: a, namespace: ns}`, notServd: true},
		{name: "route valid", def: route, object: `
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: r, namespace: ns}
spec: {to: {kind: Service, name: s}, tls: {termination: edge}}`},
		{name: "route CEL rule", def: route, object: `
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: r, namespace: ns}
spec: {to: {kind: Service, name: s}, tls: {termination: passthrough, insecureEdgeTerminationPolicy: Allow}}`,
			problems: []string{"spec.tls: Invalid value: cannot have both spec.tls.termination: passthrough and spec.tls.insecureEdgeTerminationPolicy: Allow"}},
		{name: "route enum", def: route, object: `
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: r, namespace: ns}
spec: {to: {kind: Service, name: s}, tls: {termination: edgy}}`,
			problems: []string{`spec.tls.termination: Unsupported value: supported values: "edge", "reencrypt", "passthrough"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := tc.def(t)
			o := obj(t, tc.object)
			before, _ := json.Marshal(o)
			res, err := def.Check(o)
			if tc.notServd {
				require.ErrorIs(t, err, crd.ErrVersionNotServed)
				assert.ErrorContains(t, err, "sleepinfos.kube-green.com serves v1alpha1")
				return
			}
			require.NoError(t, err)
			var problems []string
			for _, p := range res.Problems {
				problems = append(problems, p.String())
			}
			assert.Equal(t, tc.problems, problems)
			assert.Equal(t, tc.pruned, res.Pruned)
			after, _ := json.Marshal(o)
			assert.JSONEq(t, string(before), string(after), "the object given is never modified")
			if len(tc.pruned) > 0 {
				got, _ := json.Marshal(res.Object)
				assert.NotContains(t, string(got), "wekdays")
				assert.NotContains(t, string(got), "lables")
				assert.Contains(t, string(got), `"status":{}`, "status is SleepInfo's: it stays")
			}
		})
	}
}

func TestFieldsAt(t *testing.T) {
	sleepInfo := sleepInfo(t)
	assert.Contains(t, sleepInfo.FieldsAt("kube-green.com/v1alpha1", "spec.wekdays"), "weekdays")
	assert.Contains(t, sleepInfo.FieldsAt("kube-green.com/v1alpha1", "spec.excludeRef[0].nme"), "name")
	assert.Nil(t, sleepInfo.FieldsAt("kube-green.com/v1", "spec.wekdays"))
	assert.Nil(t, sleepInfo.FieldsAt("kube-green.com/v1alpha1", "metadata.lables"))
}
