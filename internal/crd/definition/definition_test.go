package definition_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd/definition"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

func obj(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &m))
	return m
}

// TestValidate runs the API server's CRD validation: the real CRDs pass; a default
// the schema refuses, a name that is not plural.group, a protected group are refused.
func TestValidate(t *testing.T) {
	for _, crd := range []struct {
		name string
		path func(testing.TB) string // kube-green's and Keycloak's are reference data
	}{
		{"SleepInfo", func(t testing.TB) string {
			return refdata.Path(t, "catalogs-community-v4.16-extracted-bundles/kube-green.v0.7.1/manifests/00-customresourcedefinition-sleepinfos.kube-green.com.yaml")
		}},
		{"Route", func(testing.TB) string { return "../../platform/openshift/routes.crd.yaml" }},
		{"Keycloak", func(t testing.TB) string {
			return refdata.Testdata(t, "bundles/keycloak-operator-26.7.1/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml")
		}},
	} {
		t.Run(crd.name, func(t *testing.T) {
			path := crd.path(t)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var m map[string]any
			require.NoError(t, yaml.Unmarshal(data, &m))
			problems, err := definition.Validate(m)
			require.NoError(t, err)
			assert.Empty(t, problems, path)
		})
	}
	bad := obj(t, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widget.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: big}
              color: {type: string, enum: [red, blue], default: green}`)
	problems, err := definition.Validate(bad)
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	assert.Equal(t, []string{
		`metadata.name: Invalid value: must be spec.names.plural+"."+spec.group`,
		// the server's own paths: a schema all versions share is checked as spec.validation
		`spec.validation.openAPIV3Schema.properties[spec].properties[color].default: Unsupported value: supported values: "red", "blue"`,
		`spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: must be of type integer: "string"`,
	}, got)
}
