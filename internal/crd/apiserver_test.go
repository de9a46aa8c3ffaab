package crd_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// TestChecksAgreeWithTheAPIServer installs real CRDs (kube-green's SleepInfo, Keycloak's,
// OpenShift's Route) in the real kube-apiserver the tests run, and creates objects in a
// server-side dry run: what Check refuses, the server refuses (at the same field); what it
// accepts, the server accepts and stores exactly as CheckDefaulted says (pruned, defaulted).
func TestChecksAgreeWithTheAPIServer(t *testing.T) {
	files := map[string]string{ // kube-green's and Keycloak's are reference data
		"kube-green.com":     refdata.Path(t, sleepInfoRef),
		"route.openshift.io": routeCRD,
		"k8s.keycloak.org":   refdata.Testdata(t, "bundles/keycloak-operator-26.7.1/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml"),
	}
	c := testcluster.Start(t)
	defs := map[string]*crd.Definition{}
	for group, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		c.Apply(t, string(data))
		defs[group] = load(t, f)
	}
	keycloak, err := os.ReadFile("../../testdata/render/real-foundational-services-on-a-cluster/expected/19_keycloak_cs-services_cs-keycloak.yaml")
	require.NoError(t, err)
	ns := c.Namespace(t)
	for _, tc := range []struct {
		name, object string
		refused      bool
	}{
		{"SleepInfo valid", `{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, metadata: {name: a}, spec: {weekdays: "1-5", sleepAt: "20:00"}}`, false},
		{"SleepInfo wrong type", `{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, metadata: {name: a}, spec: {weekdays: 5, sleepAt: "20:00"}}`, true},
		{"SleepInfo required field missing", `{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, metadata: {name: a}, spec: {weekdays: "1-5"}}`, true},
		{"SleepInfo unknown fields pruned", `{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, metadata: {name: a, lables: {x: y}}, spec: {weekdays: "1-5", sleepAt: "20:00", wekdays: "x", excludeRef: [{kind: Deployment, nme: api}]}}`, false},
		{"Route valid, defaulted", `{apiVersion: route.openshift.io/v1, kind: Route, metadata: {name: r}, spec: {to: {kind: Service, name: s}, tls: {termination: edge}}}`, false},
		{"Route CEL rule", `{apiVersion: route.openshift.io/v1, kind: Route, metadata: {name: r}, spec: {to: {kind: Service, name: s}, tls: {termination: passthrough, insecureEdgeTerminationPolicy: Allow}}}`, true},
		{"Route enum", `{apiVersion: route.openshift.io/v1, kind: Route, metadata: {name: r}, spec: {to: {kind: Service, name: s}, tls: {termination: edgy}}}`, true},
		{"Route host pattern", `{apiVersion: route.openshift.io/v1, kind: Route, metadata: {name: r}, spec: {host: "Not_A_Host", to: {kind: Service, name: s}}}`, true},
		{"IBM's Keycloak CR as rendered", string(keycloak), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(tc.object), &obj))
			md := obj["metadata"].(map[string]any)
			md["namespace"] = ns
			group := strings.Split(obj["apiVersion"].(string), "/")[0]
			res, err := defs[group].CheckDefaulted(obj)
			require.NoError(t, err)
			stored, serverErr := c.DryRunCreateStored(obj)
			if tc.refused {
				require.Error(t, serverErr, "the API server refuses it")
				require.NotEmpty(t, res.Problems, "so does Check")
				for _, p := range res.Problems {
					assert.Contains(t, serverErr.Error(), p.Field, "the server names the field Check names")
				}
				return
			}
			require.NoError(t, serverErr, "the API server accepts it")
			require.Empty(t, res.Problems, "so does Check")
			want, _ := json.Marshal(res.Object["spec"])
			got, _ := json.Marshal(stored["spec"])
			assert.JSONEq(t, string(got), string(want), "Check's object is what the server stores")
			storedMD := stored["metadata"].(map[string]any)
			for k := range res.Object["metadata"].(map[string]any) {
				assert.Contains(t, storedMD, k)
			}
			assert.NotContains(t, storedMD, "lables")
		})
	}
}
