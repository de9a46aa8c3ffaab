package platform

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMissingRequired(t *testing.T) {
	for _, tc := range []struct {
		name             string
		apiVersion, kind string
		obj              map[string]any
		want             []Missing
	}{
		{"an image only validation requires, a name the document requires", "batch/v1", "Job",
			map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "a", "image": nil}, map[string]any{"command": []any{"x"}}}}}}},
			[]Missing{{Path: "spec.template.spec.containers[0].image", Validation: true}, {Path: "spec.template.spec.containers[1].name"}, {Path: "spec.template.spec.containers[1].image", Validation: true}}},
		{"map values are walked in key order", "v1", "Pod",
			map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "a", "image": "i"}},
				"overhead": map[string]any{}, "nodeSelector": map[string]any{"b": "x"}}}, nil},
		{"status is not looked at", "v1", "Service",
			map[string]any{"status": map[string]any{"conditions": []any{map[string]any{}}}}, nil},
		{"wrong types are the decoder's", "v1", "Service",
			map[string]any{"spec": map[string]any{"ports": "80"}}, nil},
		{"a kind without required fields", "v1", "ConfigMap", map[string]any{"data": map[string]any{"a": "b"}}, nil},
		{"not a built-in kind", "example.com/v1", "Widget", map[string]any{"spec": map[string]any{}}, nil},
		{"a version the document does not describe", "apps/v1beta1", "Deployment", map[string]any{"spec": map[string]any{}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, MissingRequired(tc.apiVersion, tc.kind, tc.obj))
		})
	}
	assert.Equal(t, "1.36.3", RequiredSource())
}
