package crdupgrade_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crdupgrade"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// sleepInfos is kube-green 0.7.1's SleepInfo CRD, of the real bundle in the reference
// folder (t skips without it).
func sleepInfos(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "bundles/kube-green-0.7.1/manifests/kube-green.com_sleepinfos.yaml")
}

// load reads a CRD manifest.
func load(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, yaml.Unmarshal(data, &out))
	return out
}

// versions are a CRD manifest's spec.versions.
func versions(crd map[string]any) []any {
	return crd["spec"].(map[string]any)["versions"].([]any)
}

// version is the manifest of the CRD's i-th version.
func version(crd map[string]any, i int) map[string]any {
	return versions(crd)[i].(map[string]any)
}

// prop is the schema at a path of properties of the first version (prop(crd) is the root).
func prop(crd map[string]any, names ...string) map[string]any {
	s := version(crd, 0)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	for _, n := range names {
		if n == "[*]" {
			s = s["items"].(map[string]any)
			continue
		}
		s = s["properties"].(map[string]any)[n].(map[string]any)
	}
	return s
}

// addBeta appends a copy of the first version named v1beta1.
func addBeta(crd map[string]any, storage bool) {
	v := map[string]any{}
	data, _ := yaml.Marshal(version(crd, 0))
	_ = yaml.Unmarshal(data, &v)
	v["name"], v["storage"] = "v1beta1", storage
	crd["spec"].(map[string]any)["versions"] = append(versions(crd), v)
}

// verdict is what a test compares of a finding.
type verdict struct {
	Version, Field, Rule string
	Safe                 bool
}

func verdicts(findings []crdupgrade.Finding) []verdict {
	out := []verdict{}
	for _, f := range findings {
		out = append(out, verdict{f.Version, f.Field, f.Rule, f.Safe})
	}
	return out
}

func TestCheckRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		change  func(before, after map[string]any)
		want    []verdict
		message string // a part of the first finding's message
	}{
		{"nothing changed", func(_, _ map[string]any) {}, []verdict{}, ""},
		{"description changed (OLM ignores it)", func(_, n map[string]any) {
			prop(n, "spec", "weekdays")["description"] = "other words"
		}, []verdict{}, ""},
		{"storage version removed (the API server's default status.storedVersions has it)", func(o, n map[string]any) {
			delete(o, "status")
			addBeta(n, true)
			n["spec"].(map[string]any)["versions"] = versions(n)[1:]
		}, []verdict{{"", "status.storedVersions", "storedVersionRemoval", false}, {"v1beta1", "", "versionAdded", true}}, "stored versions removed : [v1alpha1]"},
		{"served version removed", func(o, _ map[string]any) {
			delete(o, "status")
			addBeta(o, false)
		}, []verdict{{"v1beta1", "", "versionRemoval", false}}, "objects may be stored in it"},
		{"version in status.storedVersions removed", func(o, _ map[string]any) {
			addBeta(o, false)
			o["status"].(map[string]any)["storedVersions"] = []any{"v1alpha1", "v1beta1"}
		}, []verdict{{"", "status.storedVersions", "storedVersionRemoval", false}}, "stored versions removed"},
		{"version added", func(_, n map[string]any) {
			addBeta(n, false)
		}, []verdict{{"v1beta1", "", "versionAdded", true}}, "served: true, storage: false"},
		{"scope changed", func(_, n map[string]any) {
			n["spec"].(map[string]any)["scope"] = "Cluster"
		}, []verdict{{"", "spec.scope", "scope", false}}, "Namespaced"},
		{"field removed", func(_, n map[string]any) {
			delete(prop(n, "spec")["properties"].(map[string]any), "timeZone")
		}, []verdict{{"v1alpha1", "spec.timeZone", "existingFieldRemoval", false}}, "field removed"},
		{"field of an array's items removed", func(_, n map[string]any) {
			delete(prop(n, "spec", "excludeRef", "[*]")["properties"].(map[string]any), "kind")
		}, []verdict{{"v1alpha1", "spec.excludeRef[*].kind", "existingFieldRemoval", false}}, "field removed"},
		{"type changed", func(_, n map[string]any) {
			prop(n, "spec", "suspendCronJobs")["type"] = "string"
		}, []verdict{{"v1alpha1", "spec.suspendCronJobs", "type", false}}, `"boolean" -> "string"`},
		{"enum narrowed", func(o, n map[string]any) {
			prop(o, "status", "operation")["enum"] = []any{"sleep", "wake_up"}
			prop(n, "status", "operation")["enum"] = []any{"sleep"}
		}, []verdict{{"v1alpha1", "status.operation", "enum", false}}, "allowed enum values removed"},
		{"enum added", func(_, n map[string]any) {
			prop(n, "status", "operation")["enum"] = []any{"sleep"}
		}, []verdict{{"v1alpha1", "status.operation", "enum", false}}, "enum constraint added"},
		{"enum widened", func(o, n map[string]any) {
			prop(o, "status", "operation")["enum"] = []any{"sleep"}
			prop(n, "status", "operation")["enum"] = []any{"sleep", "wake_up"}
		}, []verdict{{"v1alpha1", "status.operation", "enum", true}}, `enum values added: ["wake_up"]`},
		{"new required field", func(_, n map[string]any) {
			prop(n, "spec")["properties"].(map[string]any)["owner"] = map[string]any{"type": "string"}
			prop(n, "spec")["required"] = []any{"sleepAt", "weekdays", "owner"}
		}, []verdict{{"v1alpha1", "spec.owner", "required", false}}, "new required field"},
		{"existing field made required", func(_, n map[string]any) {
			prop(n, "spec")["required"] = []any{"sleepAt", "weekdays", "timeZone"}
		}, []verdict{{"v1alpha1", "spec.timeZone", "required", false}}, "new required field"},
		{"optional field added", func(_, n map[string]any) {
			prop(n, "spec")["properties"].(map[string]any)["owner"] = map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
		}, []verdict{{"v1alpha1", "spec.owner", "fieldAdded", true}}, "optional field added"},
		{"default added", func(_, n map[string]any) {
			prop(n, "spec", "suspendDeployments")["default"] = true
		}, []verdict{{"v1alpha1", "spec.suspendDeployments", "default", false}}, "default added"},
		{"default changed", func(o, n map[string]any) {
			prop(o, "spec", "suspendDeployments")["default"] = true
			prop(n, "spec", "suspendDeployments")["default"] = false
		}, []verdict{{"v1alpha1", "spec.suspendDeployments", "default", false}}, "default value changed"},
		{"default removed", func(o, _ map[string]any) {
			prop(o, "spec", "suspendDeployments")["default"] = true
		}, []verdict{{"v1alpha1", "spec.suspendDeployments", "default", false}}, "default value removed"},
		{"maximum lowered", func(o, n map[string]any) {
			for _, crd := range []map[string]any{o, n} {
				prop(crd, "spec")["properties"].(map[string]any)["days"] = map[string]any{"type": "integer", "minimum": 0, "maximum": 10}
			}
			prop(n, "spec", "days")["maximum"] = 5
		}, []verdict{{"v1alpha1", "spec.days", "maximum", false}}, "maximum decreased"},
		{"minimum raised", func(o, n map[string]any) {
			for _, crd := range []map[string]any{o, n} {
				prop(crd, "spec")["properties"].(map[string]any)["days"] = map[string]any{"type": "integer", "minimum": 0, "maximum": 10}
			}
			prop(n, "spec", "days")["minimum"] = 1
		}, []verdict{{"v1alpha1", "spec.days", "minimum", false}}, "minimum increased"},
		{"maxLength added", func(_, n map[string]any) {
			prop(n, "spec", "weekdays")["maxLength"] = 13
		}, []verdict{{"v1alpha1", "spec.weekdays", "maxLength", false}}, "maximum constraint added when there was none previously : 13"},
		{"minLength added", func(_, n map[string]any) {
			prop(n, "spec", "weekdays")["minLength"] = 1
		}, []verdict{{"v1alpha1", "spec.weekdays", "minLength", false}}, "minimum constraint added when there was none previously : 1"},
		{"maxItems lowered", func(o, n map[string]any) {
			prop(o, "spec", "excludeRef")["maxItems"] = 10
			prop(n, "spec", "excludeRef")["maxItems"] = 3
		}, []verdict{{"v1alpha1", "spec.excludeRef", "maxItems", false}}, "maximum decreased : 10 -> 3"},
		{"minItems added", func(_, n map[string]any) {
			prop(n, "spec", "patches")["minItems"] = 1
		}, []verdict{{"v1alpha1", "spec.patches", "minItems", false}}, "minimum constraint added when there was none previously : 1"},
		{"pattern added", func(_, n map[string]any) {
			prop(n, "spec", "sleepAt")["pattern"] = `^\d\d:\d\d$`
		}, []verdict{{"v1alpha1", "spec.sleepAt", "pattern", false}}, "pattern added"},
		{"validation loosened", func(o, n map[string]any) {
			prop(o, "spec", "weekdays")["maxLength"] = 13
			prop(n, "spec", "weekdays")["maxLength"] = 20
		}, []verdict{}, ""},
		{"CEL rule added (no rule covers it)", func(_, n map[string]any) {
			prop(n, "spec")["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.sleepAt)"}}
		}, []verdict{{"v1alpha1", "spec", "unhandled", false}}, "x-kubernetes-validations changed"},
		{"two served versions drift apart", func(o, n map[string]any) {
			addBeta(o, false)
			addBeta(n, false)
			prop(n, "spec", "weekdays")["type"] = "integer"
		}, []verdict{{"v1alpha1", "spec.weekdays", "type", false}, {"v1alpha1 -> v1beta1", "spec.weekdays", "type", false}}, `"string" -> "integer"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before, after := load(t, sleepInfos(t)), load(t, sleepInfos(t))
			tc.change(before, after)
			findings, err := crdupgrade.Check(before, after)
			require.NoError(t, err)
			assert.Equal(t, tc.want, verdicts(findings))
			for _, f := range findings {
				assert.Equal(t, "sleepinfos.kube-green.com", f.CRD)
			}
			if len(findings) > 0 {
				assert.Contains(t, findings[0].Message, tc.message)
			}
		})
	}
}

func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	other := load(t, sleepInfos(t))
	other["metadata"].(map[string]any)["name"] = "other.kube-green.com"
	beta := load(t, sleepInfos(t))
	beta["apiVersion"] = "apiextensions.k8s.io/v1beta1"
	for _, tc := range []struct {
		name     string
		old, new map[string]any
		err      string
	}{
		{"two CRDs", load(t, sleepInfos(t)), other, "the old CRD is sleepinfos.kube-green.com and the new other.kube-green.com"},
		{"v1beta1", beta, load(t, sleepInfos(t)), `old CRD: apiVersion "apiextensions.k8s.io/v1beta1"`},
		{"not a CRD", load(t, sleepInfos(t)), map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}, `new CRD sleepinfos.kube-green.com: apiVersion "v1" kind "ConfigMap"`},
		{"no name", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}, load(t, sleepInfos(t)), "metadata.name is empty"},
		{"bad field", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": "x"}, load(t, sleepInfos(t)), "reading the manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := crdupgrade.Check(tc.old, tc.new)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestCheckRealUpgrades compares the CRDs of two releases of real operators, their bundles
// read from the reference folder.
func TestCheckRealUpgrades(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, old, new string
		unsafe         []verdict
		safe           int
	}{
		{
			"Keycloak 24.0.0 to 26.0.0",
			"keycloak-operator-24.0.0/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml",
			"keycloak-operator-26.0.0/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml",
			[]verdict{{"v2alpha1", "spec.truststores", "unhandled", false}},
			11,
		},
		{
			"Keycloak 22.0.0 to 24.0.0",
			"keycloak-operator-22.0.0/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml",
			"keycloak-operator-24.0.0/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml",
			[]verdict{
				{"v2alpha1", "spec.unsupported.podTemplate.spec.volumes[*].ephemeral.volumeClaimTemplate.spec.resources.claims", "existingFieldRemoval", false},
				{"v2alpha1", "spec.unsupported.podTemplate.spec.volumes[*].ephemeral.volumeClaimTemplate.spec.resources.claims[*]", "existingFieldRemoval", false},
				{"v2alpha1", "spec.unsupported.podTemplate.spec.volumes[*].ephemeral.volumeClaimTemplate.spec.resources.claims[*].name", "existingFieldRemoval", false},
				{"v2alpha1", "status.conditions[*].status", "type", false},
				{"v2alpha1", "status.conditions[*].status", "unhandled", false},
				{"v2alpha1", "status.conditions[*].status.value", "existingFieldRemoval", false},
			},
			27,
		},
		{
			"EDB cloud-native-postgresql 1.28.4 to 1.29.0, Cluster",
			"cloud-native-postgresql-1.28.4/manifests/postgresql.k8s.enterprisedb.io_clusters.yaml",
			"cloud-native-postgresql-1.29.0/manifests/postgresql.k8s.enterprisedb.io_clusters.yaml",
			[]verdict{
				{"v1", "spec.backup.barmanObjectStore.data.compression", "enum", false},
				{"v1", "spec.externalClusters[*].barmanObjectStore.data.compression", "enum", false},
				{"v1", "spec.postgresql.extensions", "unhandled", false},
				{"v1", "status.selector", "existingFieldRemoval", false},
			},
			4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bundles := refdata.Testdata(t, "bundles") + "/"
			findings, err := crdupgrade.Check(load(t, bundles+tc.old), load(t, bundles+tc.new))
			require.NoError(t, err)
			unsafe := crdupgrade.Unsafe(findings)
			assert.Equal(t, tc.unsafe, verdicts(unsafe))
			assert.Len(t, findings, len(unsafe)+tc.safe)
			again, err := crdupgrade.Check(load(t, bundles+tc.old), load(t, bundles+tc.new))
			require.NoError(t, err)
			assert.Equal(t, findings, again, "the same answer twice")
		})
	}
}
