package crd_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// FuzzCheck runs objects through real CRDs (kube-green's SleepInfo, OpenShift's Route, with
// CEL rules) and CRDs made of the fuzzed text: no input panics (Check and Parse turn the
// library's panics into errors), the object given is never modified, and the answer is the
// same the second time (from the cache for valid objects).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"apiVersion: kube-green.com/v1alpha1\nkind: SleepInfo\nmetadata: {name: a}\nspec: {weekdays: 5, wekdays: x}\n",
		"apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r}\nspec: {to: {kind: Service, name: s}, tls: {termination: passthrough, insecureEdgeTerminationPolicy: Allow}}\n",
		"apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r, labels: {a: 1}}\nspec: {host: 'x..y', port: {targetPort: 0}}\n",
		"apiVersion: kube-green.com/v1alpha1\nkind: SleepInfo\nmetadata: {name: a, lables: [1]}\nspec: {excludeRef: [{nme: 1}, null]}\n",
	} {
		f.Add(s)
	}
	defs := []*crd.Definition{load(f, routeCRD)}
	if refdata.Available() || os.Getenv(refdata.EnvRequire) == "1" {
		// kube-green's CRD is reference data: without the folder the Route's alone are fuzzed
		// (with ODLM_RENDER_REQUIRE_TOOLS=1, its absence fails)
		defs = append(defs, sleepInfo(f))
	}
	f.Fuzz(func(t *testing.T, text string) {
		var m map[string]any
		if yaml.Unmarshal([]byte(text), &m) != nil || m == nil {
			return
		}
		before, err := json.Marshal(m)
		if err != nil {
			return
		}
		for _, d := range defs {
			first, err1 := d.Check(m)
			second, err2 := d.Check(m)
			require.Equal(t, err1 == nil, err2 == nil)
			require.Equal(t, first.Problems, second.Problems)
			require.Equal(t, first.Pruned, second.Pruned)
		}
		after, _ := json.Marshal(m)
		require.JSONEq(t, string(before), string(after), "Check modified its input")
		// the text as a CRD: parsing never panics
		_, _ = crd.Parse(m)
	})
}
