package crd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/odlm-render/odlm-render/internal/crd"
)

// planted stands for a Secret's value: it must appear in no message.
const planted = "S3CRET-planted"

// widgetCRD quotes values wherever the server's messages can: a format, messageExpressions
// (on an object, a property, list items, map values), a CEL function's error.
const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
            x-kubernetes-validations:
            - {rule: "self.name.startsWith('ok')", messageExpression: "'name ' + self.name + ' is wrong'"}
            properties:
              when: {type: string, format: date-time}
              count: {type: integer}
              name: {type: string}
              size:
                type: string
                x-kubernetes-validations:
                - {rule: "self.size() < 5", messageExpression: "'too long: ' + self", message: "is too long"}
              link:
                type: string
                x-kubernetes-validations:
                - {rule: "url(self).getScheme() == 'https'"}
              items:
                type: array
                items:
                  type: string
                  x-kubernetes-validations:
                  - {rule: "self == 'x'", messageExpression: "'item ' + self"}
              labels:
                type: object
                additionalProperties:
                  type: string
                  x-kubernetes-validations:
                  - {rule: "self == 'x'", messageExpression: "'label ' + self"}
`

func widget(t *testing.T) *crd.Definition {
	t.Helper()
	d, err := crd.Parse(obj(t, widgetCRD))
	require.NoError(t, err)
	return d
}

func TestMessagesNeverQuoteTheValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		want []string
	}{
		{"a format", `{name: ok, when: ` + planted + `}`,
			[]string{"spec.when: Invalid value: must be of type date-time"}},
		{"a messageExpression on an object gives the rule", `{name: ` + planted + `}`,
			[]string{"spec: Invalid value: failed rule: self.name.startsWith('ok')"}},
		{"a messageExpression on a property gives the message", `{name: ok, size: ` + planted + `}`,
			[]string{"spec.size: Invalid value: is too long"}},
		{"a CEL function's error", `{name: ok, link: "http://` + planted + `:x:y"}`,
			[]string{`spec.link: Invalid value: the rule cannot be evaluated on this value: url(self).getScheme() == 'https'`}},
		{"list items", `{name: ok, items: [x, ` + planted + `]}`,
			[]string{"spec.items[1]: Invalid value: failed rule: self == 'x'"}},
		{"map values", `{name: ok, labels: {a: ` + planted + `}}`,
			[]string{"spec.labels[a]: Invalid value: failed rule: self == 'x'"}},
		{"a type mismatch names the types, which is no value", `{name: ok, count: ` + planted + `}`,
			[]string{`spec.count: Invalid value: must be of type integer: "string"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := widget(t).Check(obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: "+tc.spec))
			require.NoError(t, err)
			var got []string
			for _, p := range res.Problems {
				got = append(got, p.String())
				assert.NotContains(t, p.String(), planted)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestMetadataOfTheWrongFormIsRefusedWithoutItsValue(t *testing.T) {
	for _, md := range []string{
		`{name: w, namespace: ns, creationTimestamp: ` + planted + `}`,
		`{name: w, namespace: ns, labels: {a: 12345678}}`,
		`{name: w, namespace: ns, generation: "` + planted + `"}`,
	} {
		res, err := widget(t).Check(obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: "+md+"\nspec: {name: ok}"))
		require.NoError(t, err)
		require.Len(t, res.Problems, 1, md)
		assert.Equal(t, "metadata", res.Problems[0].Field)
		assert.NotContains(t, res.Problems[0].Reason, planted)
		assert.NotContains(t, res.Problems[0].Reason, "12345678")
	}
}

func TestReasonLeavesOutBadValue(t *testing.T) {
	for _, tc := range []struct {
		err  *field.Error
		want string
	}{
		{field.Invalid(field.NewPath("spec", "x"), planted, "spec.x in body must be of type date-time: \""+planted+"\""), "Invalid value: must be of type date-time"},
		{field.Invalid(field.NewPath("spec", "x"), planted, "spec.x in body must be of type byte, because: illegal base64 data "+planted), "Invalid value: must be of type byte"},
		{field.Invalid(field.NewPath("spec", "x"), "integer", "must be of type string: \"integer\""), `Invalid value: must be of type string: "integer"`},
		{field.Invalid(field.NewPath("spec", "x"), planted, "must be of type string,integer: \"integer\""), `Invalid value: must be of type string,integer: "integer"`},
		{field.Invalid(field.NewPath("spec", "x"), planted, "must be of type date-time: \"integer\""), `Invalid value: must be of type date-time`},
		{field.NotSupported(field.NewPath("spec", "x"), planted, []string{"a", "b"}), `Unsupported value: supported values: "a", "b"`},
		{field.Duplicate(field.NewPath("spec", "x"), planted), "Duplicate value"},
		{field.Invalid(field.NewPath("spec", "x"), "string", "parse \""+planted+"\": bad evaluating rule: url(self) != null"), "Invalid value: the rule cannot be evaluated on this value: url(self) != null"},
	} {
		got := crd.Reason(tc.err)
		assert.Equal(t, tc.want, got)
		assert.NotContains(t, got, planted)
	}
}
