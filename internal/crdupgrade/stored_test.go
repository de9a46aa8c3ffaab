package crdupgrade_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crdupgrade"
)

// sleepInfo is a SleepInfo valid for kube-green 0.7.1's CRD.
func sleepInfo(t *testing.T) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(`{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, metadata: {name: night, namespace: dev}, spec: {weekdays: "1-5", sleepAt: "20:00", timeZone: Europe/Rome}}`), &obj))
	return obj
}

func TestValidateStored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		change  func(crd map[string]any)
		version string
		want    []crdupgrade.Problem
	}{
		{"the same CRD", func(map[string]any) {}, "v1alpha1", nil},
		{"a field made required", func(crd map[string]any) {
			prop(crd, "spec")["required"] = []any{"sleepAt", "weekdays", "wakeUpAt"}
		}, "v1alpha1", []crdupgrade.Problem{{Object: "dev/night", Field: "spec.wakeUpAt", Reason: "Required value: every update of the object is refused until this field is fixed"}}},
		{"a field removed", func(crd map[string]any) {
			delete(prop(crd, "spec")["properties"].(map[string]any), "timeZone")
		}, "v1alpha1", []crdupgrade.Problem{{Object: "dev/night", Field: "spec.timeZone", Reason: "not in the new schema: the API server drops it when it reads the object, and it is lost on the next write"}}},
		{"a type changed", func(crd map[string]any) {
			prop(crd, "spec", "weekdays")["type"] = "integer"
		}, "v1alpha1", []crdupgrade.Problem{{Object: "dev/night", Field: "spec.weekdays", Reason: `Invalid value: must be of type integer: "string": every update of the object is refused until this field is fixed`}}},
		{"an enum narrowed", func(crd map[string]any) {
			prop(crd, "spec", "timeZone")["enum"] = []any{"UTC"}
		}, "v1alpha1", []crdupgrade.Problem{{Object: "dev/night", Field: "spec.timeZone", Reason: `Unsupported value: supported values: "UTC": an update that leaves the field as it is passes (validation ratcheting, Kubernetes 1.30+); one that changes it, or a new object with this value, is refused`}}},
		{"the version is not served", func(crd map[string]any) {
			version(crd, 0)["served"] = false
		}, "v1alpha1", []crdupgrade.Problem{{Object: "dev/night", Reason: "CRD sleepinfos.kube-green.com does not serve version v1alpha1"}}},
		{"another version", func(crd map[string]any) { addBeta(crd, false) }, "v1beta1", nil},
		{"not a CRD", func(crd map[string]any) { crd["apiVersion"] = "v1" }, "v1alpha1", []crdupgrade.Problem{{Reason: `the new CRD cannot be read: apiVersion "v1" is not a CustomResourceDefinition version (apiextensions.k8s.io/v1)`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			crd := load(t, sleepInfos(t))
			tc.change(crd)
			obj := sleepInfo(t)
			got := crdupgrade.ValidateStored(crd, tc.version, []map[string]any{obj})
			assert.Equal(t, tc.want, got)
			assert.Equal(t, sleepInfo(t), obj, "the object is not modified")
		})
	}
}
