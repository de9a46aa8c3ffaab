package template_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template"
)

// tcase is one template vector: in is a YAML mapping, want the resolved mapping (YAML) or
// wantErr a substring of the error.
type tcase struct {
	name     string
	in       string
	want     string
	wantErr  string
	required bool // the error is a required value that resolved to ""
}

func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := resolve(t, value(t, tc.in), newReader(t, fixtures))
			assertNoSecret(t, o)
			if tc.wantErr != "" {
				require.Error(t, o.err)
				assert.Contains(t, o.err.Error(), tc.wantErr)
				var te *template.Error
				require.ErrorAs(t, o.err, &te)
				assert.Equal(t, tc.required, te.Required)
				assert.Nil(t, o.out)
				return
			}
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

// cm is a template reading key k of ConfigMap ns/cm.
func cm(k string) string {
	return `{templatingValueFrom: {configMapKeyRef: {name: cm, key: "` + k + `"}}}`
}

func TestConversions(t *testing.T) { // docs/semantics.md, Templating: result
	runCases(t, []tcase{
		{name: "a number stays a string", in: `v: ` + cm("num"), want: `v: "42"`},
		{name: "true becomes a boolean", in: `v: ` + cm("t"), want: `v: true`},
		{name: "false becomes a boolean", in: `v: ` + cm("f"), want: `v: false`},
		{name: "False stays a string", in: `v: ` + cm("F"), want: `v: "False"`},
		{name: "empty deletes the key", in: `{v: ` + cm("empty") + `, w: 1}`, want: `w: 1`},
		{name: "missing key deletes the key", in: `{v: ` + cm("nope") + `, w: 1}`, want: `w: 1`},
		{name: "a JSON array string becomes an array", in: `v: ` + cm("arr"), want: `v: [1, "a", true, 2.50]`},
		{name: "a JSON object stays a string", in: `v: ` + cm("obj"), want: `v: '{"a":1}'`},
		{name: "a broken array stays a string", in: `v: ` + cm("badarr"), want: `v: '[1,'`},
		{name: "an array with a number beyond float64 stays a string", in: `v: ` + cm("big"), want: `v: '[1e400]'`},
		{name: "leading space: not an array", in: `v: ` + cm("sp"), want: `v: ' [1]'`},
		{name: "siblings of templatingValueFrom are lost", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}}, other: 1, nested: {templatingValueFrom: {required: true}}}`,
			want: `v: from-cm`},
		{name: "nested maps", in: `spec: {a: {b: ` + cm("a") + `, c: 1}}`, want: `spec: {a: {b: from-cm, c: 1}}`},
		{name: "map elements of lists", in: `items: [1, {host: ` + cm("a") + `}, {deep: {x: ` + cm("num") + `}, l: [{y: ` + cm("t") + `}]}]`,
			want: `items: [1, {host: from-cm}, {deep: {x: "42"}, l: [{y: true}]}]`},
		{name: "lists of lists are not walked", in: `l: [[{x: ` + cm("a") + `}]]`, want: `l: [[{x: ` + cm("a") + `}]]`},
		{name: "a list element that is itself a template is not resolved", in: `l: [` + cm("a") + `]`, want: `l: [` + cm("a") + `]`},
		{name: "templatingValueFrom that is not a map deletes the key", in: `{v: {templatingValueFrom: "x"}, w: {templatingValueFrom: null}, x: {templatingValueFrom: [1]}, y: 1}`,
			want: `y: 1`},
		{name: "the top-level map itself is not a template", in: `{templatingValueFrom: {configMapKeyRef: {name: cm, key: a}}}`,
			want: `{templatingValueFrom: {configMapKeyRef: {name: cm, key: a}}}`},
		{name: "scalars untouched", in: `{a: 1, b: "templatingValueFrom", c: null, d: [1, 2]}`, want: `{a: 1, b: "templatingValueFrom", c: null, d: [1, 2]}`},
	})
}

func TestToValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want any
		keep bool
	}{
		{"", nil, false},
		{"true", true, true},
		{"false", false, true},
		{"TRUE", "TRUE", true},
		{"3", "3", true},
		{"[]", []any{}, true},
		{`[1,{"a":[2]}]`, []any{json.Number("1"), map[string]any{"a": []any{json.Number("2")}}}, true},
		{"[1] [2]", "[1] [2]", true},
		{"[1]\n", "[1]\n", true},
		{"[", "[", true},
	} {
		got, keep := template.ToValue(tc.in)
		assert.Equal(t, tc.keep, keep, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestNonMapValue(t *testing.T) {
	t.Parallel()
	in := []any{map[string]any{"x": map[string]any{"templatingValueFrom": map[string]any{"boolean": true}}}}
	out, uses, err := template.Resolve(in, template.Context{Namespace: "ns"})
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Empty(t, uses)
	out, _, err = template.Resolve(nil, template.Context{})
	require.NoError(t, err)
	assert.Nil(t, out)
}

func TestGrammar(t *testing.T) { // docs/semantics.md, Templating: resolution
	runCases(t, []tcase{
		{name: "top-level literal resolves to empty: key deleted", in: `{v: {templatingValueFrom: {literal: x}}, w: 1}`, want: `w: 1`},
		{name: "unknown keys are ignored", in: `v: {templatingValueFrom: {bogus: 1, configMapKeyRef: {name: cm, key: a, extra: [1]}}}`, want: `v: from-cm`},
		{name: "keys match case-insensitively (encoding/json)", in: `v: {templatingValueFrom: {ConfigMapKeyRef: {NAME: cm, Key: a}}}`, want: `v: from-cm`},
		{name: "an empty template is empty", in: `{v: {templatingValueFrom: {}}, w: 1}`, want: `w: 1`},
		{name: "wrong JSON type is an error", in: `v: {templatingValueFrom: {required: "yes"}}`, wantErr: "invalid templatingValueFrom"},
		{name: "boolean must be a JSON bool", in: `v: {templatingValueFrom: {boolean: "true"}}`, wantErr: "cannot unmarshal string"},
		{name: "a number literal is an error", in: `v: {templatingValueFrom: {conditional: {expression: {value: {literal: 5}}}}}`, wantErr: "cannot unmarshal number"},
		{name: "null fields are absent", in: `v: {templatingValueFrom: {conditional: null, boolean: null, configMapKeyRef: {name: cm, key: a}}}`, want: `v: from-cm`},
	})
}

func TestPrecedence(t *testing.T) { // docs/semantics.md, Templating: resolution
	const all = `configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: extra},
      objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: .status.replicas}, default: {defaultValue: dv}`
	runCases(t, []tcase{
		{name: "boolean first", in: `v: {templatingValueFrom: {boolean: false, conditional: {expression: {value: {literal: "1"}}, then: {literal: x}}, configMapKeyRef: {name: cm, key: a}}}`, want: `v: false`},
		{name: "boolean true", in: `v: {templatingValueFrom: {boolean: true}}`, want: `v: true`},
		{name: "conditional over everything else", in: `{w: 1, v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}}, required: true, configMapKeyRef: {name: cm, key: a}, default: {defaultValue: d}}}}`, want: `w: 1`},
		{name: "conditional without expression", in: `v: {templatingValueFrom: {conditional: {then: {literal: x}}, configMapKeyRef: {name: cm, key: a}}}`, wantErr: "unsupported conditional type"},
		{name: "objectRef wins", in: `v: {templatingValueFrom: {` + all + `}}`, want: `v: "3"`},
		{name: "secretKeyRef over configMapKeyRef and default", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: extra}, objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: .status.missing}, default: {defaultValue: dv}}}`,
			want: `v: from-stringData`},
		{name: "configMapKeyRef over default", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: nope}, default: {defaultValue: dv}}}`, want: `v: from-cm`},
		{name: "default when the refs are empty", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: empty}, objectRef: {apiVersion: v1, kind: Service, name: gone, path: .spec}, default: {defaultValue: dv}, required: true}}`, want: `v: dv`},
		{name: "default: objectRef over secret over configMap over defaultValue", in: `v: {templatingValueFrom: {default: {defaultValue: dv, configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: extra}, objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: .status.replicas}}}}`, want: `v: "3"`},
		{name: "default: secret over configMap", in: `v: {templatingValueFrom: {default: {defaultValue: dv, configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: extra}}}}`, want: `v: from-stringData`},
		{name: "default: configMap over defaultValue", in: `v: {templatingValueFrom: {default: {defaultValue: dv, configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: none}}}}`, want: `v: from-cm`},
		{name: "default: defaultValue", in: `v: {templatingValueFrom: {default: {defaultValue: dv, configMapKeyRef: {name: cm, key: none}}}}`, want: `v: dv`},
		{name: "default.required has no effect", in: `{w: 1, v: {templatingValueFrom: {default: {required: true, configMapKeyRef: {name: cm, key: none}}}}}`, want: `w: 1`},
		{name: "an error in default is swallowed", in: `v: {templatingValueFrom: {default: {defaultValue: dv, objectRef: {kind: Service, name: svc}}, configMapKeyRef: {name: cm, key: a}}}`, want: `v: from-cm`},
		{name: "an error in default discards the whole default", in: `{w: 1, v: {templatingValueFrom: {default: {defaultValue: dv, configMapKeyRef: {name: cm, key: a}, objectRef: {apiVersion: v1, name: svc}}}}}`, want: `w: 1`},
		{name: "required and empty", in: `v: {templatingValueFrom: {required: true, configMapKeyRef: {name: cm, key: none}}}`, wantErr: `required value from ConfigMap ns/cm key "none" is empty`, required: true},
		{name: "required with no refs", in: `v: {templatingValueFrom: {required: true, literal: x}}`, wantErr: "required value is empty", required: true},
		{name: "required satisfied by default", in: `v: {templatingValueFrom: {required: true, configMapKeyRef: {name: cm, key: none}, default: {defaultValue: dv}}}`, want: `v: dv`},
		{name: "a failing primary ref fails the template even if another would succeed", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}, objectRef: {kind: Service, name: svc, path: .spec.host}}}`, wantErr: "objectRef: apiVersion is empty"},
		{name: "objectRef without kind", in: `v: {templatingValueFrom: {objectRef: {apiVersion: v1, name: svc}}}`, wantErr: "objectRef: kind is empty"},
	})
}

func TestDefaultErrorIsReported(t *testing.T) {
	t.Parallel()
	in := value(t, `v: {templatingValueFrom: {default: {required: true}, configMapKeyRef: {name: cm, key: a}}}`)
	o := resolve(t, in, newReader(t, fixtures))
	require.NoError(t, o.err)
	require.Len(t, o.uses, 1)
	assert.Contains(t, o.uses[0].DefaultError, "required value is empty")
	assert.Equal(t, "from-cm", o.uses[0].Value)
}

func TestBranches(t *testing.T) { // GetValueFromBranch, GetValueFromSource, array
	const yes = `expression: {value: {literal: "true"}}`
	runCases(t, []tcase{
		{name: "then literal", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {literal: x}, else: {literal: y}}}}`, want: `v: x`},
		{name: "else literal", in: `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "0"}}, then: {literal: x}, else: {literal: y}}}}`, want: `v: y`},
		{name: "missing branch deletes", in: `{w: 1, v: {templatingValueFrom: {conditional: {expression: {value: {literal: "0"}}, then: {literal: x}}}}}`, want: `w: 1`},
		{name: "branch boolean", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {boolean: false, literal: x}}}}`, want: `v: false`},
		{name: "branch literal over refs", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {literal: x, configMapKeyRef: {name: cm, key: a}}}}}`, want: `v: x`},
		{name: "branch ref", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {configMapKeyRef: {name: cm, key: num}}}}}`, want: `v: "42"`},
		{name: "branch literal that is a JSON array", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {literal: '[1,"b"]'}}}}`, want: `v: [1, b]`},
		{name: "first present source, no fallback", in: `{w: 1, v: {templatingValueFrom: {conditional: {` + yes + `, then: {objectRef: {apiVersion: v1, kind: Service, name: gone, path: .spec}, configMapKeyRef: {name: cm, key: a}}}}}}`, want: `w: 1`},
		{name: "objectRef before secretKeyRef before configMapKeyRef", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {configMapKeyRef: {name: cm, key: a}, secretKeyRef: {name: sd, key: extra}}}}}`, want: `v: from-stringData`},
		{name: "a branch with only map is empty", in: `{w: 1, v: {templatingValueFrom: {conditional: {` + yes + `, then: {map: {a: 1}}}}}}`, want: `w: 1`},
		{name: "branch required and empty", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {required: true, configMapKeyRef: {name: cm, key: none}}}}}`, wantErr: `required value from ConfigMap ns/cm key "none" is empty`, required: true},
		{name: "array items", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {array: [
			{literal: value1},
			{boolean: true},
			{map: {hostname: backend, enabled: true, port: 8080, ratio: 2.50, nested: {plain: 1}, ref: {configMapKeyRef: {name: cm, key: num}}, l: [1]}},
			{configMapKeyRef: {name: cm, key: a}},
			{configMapKeyRef: {name: cm, key: none}},
			{literal: "", map: {}},
			null,
			{literal: "3"}]}}}}`,
			want: `v: [value1, true, {hostname: backend, enabled: true, port: 8080, ratio: 2.50, nested: "", ref: "42", l: [1]}, from-cm, "", {}, "", "3"]`},
		{name: "empty array falls through to the source", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {array: [], configMapKeyRef: {name: cm, key: a}}}}}`, want: `v: from-cm`},
		{name: "array item required and empty", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {array: [{literal: a}, {required: true, secretKeyRef: {name: sec, key: none}}]}}}}`, wantErr: `required value from Secret ns/sec key "none" is empty`, required: true},
		{name: "array map value with a wrong type", in: `v: {templatingValueFrom: {conditional: {` + yes + `, then: {array: [{map: {k: {literal: 1}}}]}}}}`, wantErr: "invalid array map value"},
	})
}

func TestExpressions(t *testing.T) { // docs/semantics.md, Templating: expressions
	cond := func(expr string) string {
		return `v: {templatingValueFrom: {conditional: {expression: ` + expr + `, then: {literal: "yes"}, else: {literal: "no"}}}}`
	}
	const failing = `{value: {objectRef: {kind: Service, name: svc}}}` // no apiVersion: an error
	runCases(t, []tcase{
		{name: "equal quantities", in: cond(`{equal: {left: {configMapKeyRef: {name: cm, key: q1}}, right: {literal: 1024Mi}}}`), want: `v: "yes"`},
		{name: "equal strings", in: cond(`{equal: {left: {configMapKeyRef: {name: cm, key: env}}, right: {literal: production}}}`), want: `v: "yes"`},
		{name: "equal is case-sensitive", in: cond(`{equal: {left: {literal: Production}, right: {literal: production}}}`), want: `v: "no"`},
		{name: "two missing sides are equal", in: cond(`{equal: {left: {configMapKeyRef: {name: cm, key: none}}}}`), want: `v: "yes"`},
		{name: "notEqual", in: cond(`{notEqual: {left: {literal: a}, right: {literal: b}}}`), want: `v: "yes"`},
		{name: "notEqual under quantity rules", in: cond(`{notEqual: {left: {literal: "1000m"}, right: {literal: "1"}}}`), want: `v: "no"`},
		{name: "greaterThan", in: cond(`{greaterThan: {left: {literal: 10Gi}, right: {literal: 5Gi}}}`), want: `v: "yes"`},
		{name: "lessThan", in: cond(`{lessThan: {left: {literal: 500m}, right: {literal: "1"}}}`), want: `v: "yes"`},
		{name: "first operator wins: equal before notEqual", in: cond(`{equal: {left: {literal: a}, right: {literal: b}}, notEqual: {left: {literal: a}, right: {literal: b}}}`), want: `v: "no"`},
		{name: "first operator wins: lessThan before and", in: cond(`{lessThan: {left: {literal: a}, right: {literal: b}}, and: [` + failing + `]}`), want: `v: "yes"`},
		{name: "comparison sides use value sources (boolean)", in: cond(`{equal: {left: {boolean: true}, right: {literal: "true"}}}`), want: `v: "yes"`},
		{name: "comparison sides ignore array", in: cond(`{equal: {left: {array: [{literal: x}]}, right: {literal: ""}}}`), want: `v: "yes"`},
		{name: "and true", in: cond(`{and: [{value: {literal: "1"}}, {value: {literal: "on"}}]}`), want: `v: "yes"`},
		{name: "and short-circuits on false", in: cond(`{and: [{value: {literal: "false"}}, ` + failing + `]}`), want: `v: "no"`},
		{name: "and evaluates up to a failure", in: cond(`{and: [{value: {literal: "true"}}, ` + failing + `]}`), wantErr: "objectRef: apiVersion is empty"},
		{name: "or short-circuits on true", in: cond(`{or: [{value: {literal: "yes"}}, ` + failing + `]}`), want: `v: "yes"`},
		{name: "or false", in: cond(`{or: [{value: {literal: "0"}}, {value: {literal: ""}}]}`), want: `v: "no"`},
		{name: "not", in: cond(`{not: {value: {literal: "0"}}}`), want: `v: "yes"`},
		{name: "empty and counts as absent", in: cond(`{and: [], not: {value: {literal: "1"}}}`), want: `v: "no"`},
		{name: "empty or and nothing else", in: cond(`{or: []}`), wantErr: "invalid expression format"},
		{name: "no operator", in: cond(`{}`), wantErr: "invalid expression format"},
		{name: "nil sub-expression", in: cond(`{and: [null]}`), wantErr: "expression is nil"},
		{name: "value from a ref", in: cond(`{value: {configMapKeyRef: {name: cm, key: t}}}`), want: `v: "yes"`},
		{name: "value required and empty", in: cond(`{value: {required: true, configMapKeyRef: {name: cm, key: none}}}`), wantErr: "is empty", required: true},
		{name: "reader failures in a comparison fail the template", in: cond(`{equal: {left: {literal: a}, right: ` + `{objectRef: {apiVersion: v1, kind: Service, name: ""}}}}`), wantErr: "resource name may not be empty"},
	})
}

func TestCompare(t *testing.T) {
	t.Parallel()
	const lt, eq, gt = -1, 0, 1
	for _, tc := range []struct {
		l, r  string
		order int
		ok    bool
	}{
		{"1Gi", "1024Mi", eq, true},
		{"1000m", "1", eq, true},
		{"1e3", "1000", eq, true},
		{"01", "1", eq, true},
		{"0.5", "500m", eq, true},
		{" 1Gi ", "1024Mi", eq, true},
		{"10Gi", "5Gi", gt, true},
		{"500m", "1", lt, true},
		{"5", "3", gt, true},
		{"16Gi", "17179869184", eq, true},
		{"v1.10", "v1.9", lt, true},
		{"10a", "9a", lt, true},
		{"0x10", "16", lt, true},
		{"abc", "xyz", lt, true},
		{"apple", "banana", lt, true},
		{"Z", "a", lt, true},
		{" a", "a", lt, true}, // strings compare untrimmed
		{"", "", eq, true},
		{"", "0", lt, true},
		{"NaN", "NaN", 0, false},
		{"NaN", "1", 0, false},
		{"Inf", "1e308", gt, true},
		{"-Inf", "-1e308", lt, true},
		{"1e3", "999.5", gt, true},
		{"1_000", "1000", eq, true}, // strconv.ParseFloat accepts underscores
	} {
		order, ok := template.Compare(tc.l, tc.r)
		assert.Equal(t, tc.ok, ok, "%q vs %q", tc.l, tc.r)
		if tc.ok {
			assert.Equal(t, tc.order, order, "%q vs %q", tc.l, tc.r)
		}
	}
}

func TestTruthy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"true": true, "TRUE": true, "True": true, "1": true, "yes": true, "no": true, "00": true, " ": true,
		"false": false, "FALSE": false, "0": false, "": false,
	} {
		assert.Equal(t, want, template.Truthy(in), "%q", in)
	}
}

func TestNaNIsNeverEqual(t *testing.T) {
	t.Parallel()
	runCases(t, []tcase{
		{name: "NaN equal", in: `v: {templatingValueFrom: {conditional: {expression: {equal: {left: {literal: NaN}, right: {literal: NaN}}}, then: {literal: "yes"}, else: {literal: "no"}}}}`, want: `v: "no"`},
		{name: "NaN notEqual", in: `v: {templatingValueFrom: {conditional: {expression: {notEqual: {left: {literal: NaN}, right: {literal: NaN}}}, then: {literal: "yes"}, else: {literal: "no"}}}}`, want: `v: "yes"`},
		{name: "NaN greater", in: `v: {templatingValueFrom: {conditional: {expression: {greaterThan: {left: {literal: NaN}, right: {literal: "1"}}}, then: {literal: "yes"}, else: {literal: "no"}}}}`, want: `v: "no"`},
		{name: "NaN less", in: `v: {templatingValueFrom: {conditional: {expression: {lessThan: {left: {literal: NaN}, right: {literal: "1"}}}, then: {literal: "yes"}, else: {literal: "no"}}}}`, want: `v: "no"`},
	})
}

func TestLookups(t *testing.T) { // docs/semantics.md, Templating: look-ups
	obj := func(path string) string {
		return `v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: svc, path: '` + path + `'}}}`
	}
	runCases(t, []tcase{
		{name: "namespace defaults to the instance namespace", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}}}`, want: `v: from-cm`},
		{name: "explicit namespace", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, namespace: other, key: a}}}`, want: `v: from-other-ns`},
		{name: "configMap binaryData is ignored", in: `{w: 1, v: ` + cm("bin") + `}`, want: `w: 1`},
		{name: "configMap key with a dot is a plain key", in: `v: ` + cm("data.key"), want: `v: dotted`},
		{name: "missing configMap", in: `{w: 1, v: {templatingValueFrom: {configMapKeyRef: {name: gone, key: a}}}}`, want: `w: 1`},
		{name: "secret data is base64-decoded", in: `v: {templatingValueFrom: {secretKeyRef: {name: sd, key: only-data}}}`, want: `v: data-only`},
		{name: "secret stringData is merged over data", in: `v: {templatingValueFrom: {secretKeyRef: {name: sd, key: k}}}`, want: `v: new`},
		{name: "secret empty data", in: `{w: 1, v: {templatingValueFrom: {secretKeyRef: {name: sec, key: empty}}}}`, want: `w: 1`},
		{name: "bad base64 names secret and key only", in: `v: {templatingValueFrom: {secretKeyRef: {name: bad, key: k}}}`, wantErr: `Secret ns/bad key "k": data value is not valid base64`},
		{name: "objectRef field", in: `v: {templatingValueFrom: {objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: .status.replicas}}}`, want: `v: "3"`},
		{name: "path without a leading dot is a literal", in: `v: {templatingValueFrom: {objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: data.strategy}}}`, want: `v: data.strategy`},
		{name: "empty path", in: `{w: 1, v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: svc}}}}`, want: `w: 1`},
		{name: "missing object", in: `{w: 1, v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: gone, path: .spec.host}}}}`, want: `w: 1`},
		{name: "a core apiVersion other than v1 is an error", in: `{w: 1, v: {templatingValueFrom: {objectRef: {apiVersion: v2, kind: Service, name: svc, path: .spec.host}}}}`,
			wantErr: `objectRef: v2 Service ns/svc path ".spec.host": apiVersion "v2" is not served: the core group has only version v1`},
		{name: "a malformed apiVersion is an error", in: `{w: 1, v: {templatingValueFrom: {objectRef: {apiVersion: /v1, kind: Service, name: svc, path: .spec.host}}}}`,
			wantErr: `objectRef: /v1 Service ns/svc path ".spec.host": apiVersion "/v1" is malformed`},
		{name: "missing field", in: `{w: 1, ` + obj(".spec.nope") + `}`, want: `w: 1`},
		{name: "empty string field", in: `{w: 1, ` + obj(".spec.clusterIP") + `}`, want: `w: 1`},
		{name: "out-of-range index is an error", in: obj(".spec.ports[5].port"), wantErr: "array index out of bounds"},
		{name: "malformed JSONPath is an error", in: obj(".spec.ports["), wantErr: "objectRef: v1 Service ns/svc"},
		{name: "integer", in: obj(".spec.ports[0].port"), want: `v: "80"`},
		{name: "float", in: obj(".status.ratio"), want: `v: "1.5"`},
		{name: "large float", in: obj(".status.big"), want: `v: "1e+21"`},
		{name: "boolean becomes a boolean", in: obj(".status.ready"), want: `v: true`},
		{name: "false boolean", in: obj(".status.off"), want: `v: false`},
		{name: "null prints <nil>", in: obj(".status.nothing"), want: `v: "<nil>"`},
		{name: "map stays a JSON string", in: obj(".status.labels"), want: `v: '{"a":"\u003cx\u003e","b":1}'`},
		{name: "list becomes an array", in: obj(".status.list"), want: `v: [1, two]`},
		{name: "a string field holding a JSON array becomes an array", in: obj(".status.strs"), want: `v: [x]`},
		{name: "several matches are space-joined", in: obj(".spec.ports[*].port"), want: `v: 80 443`},
		{name: "concatenation", in: obj("https://+.spec.host+:443"), want: `v: "https://svc.example:443"`},
		{name: "a literal part starting with a dot is JSONPath, finds nothing and empties the path (7.5)", in: obj(".spec.host+.svc"), want: `{}`},
		{name: "a part not found empties the whole path (7.5)", in: obj(".spec.nothere+-suffix"), want: `{}`},
		{name: "cluster-scoped objects", in: `v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Node, name: n1, path: .metadata.name}}}`, want: `v: n1`},
		{name: "empty name is a client error", in: `v: {templatingValueFrom: {configMapKeyRef: {key: a}}}`, wantErr: "resource name may not be empty"},
		{name: "name with a slash is a client error", in: `v: {templatingValueFrom: {secretKeyRef: {name: a/b, key: a}}}`, wantErr: "may not contain"},
		{name: "namespace '..' is a client error", in: `v: {templatingValueFrom: {configMapKeyRef: {name: cm, namespace: "..", key: a}}}`, wantErr: "invalid namespace"},
	})
}

func init() {
	fixtures += `
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {memory: 32Gi}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: weird, namespace: ns}
data: {n: 5}
`
}

func TestNonStringData(t *testing.T) {
	t.Parallel()
	runCases(t, []tcase{
		{name: "configMap data that is not a string", in: `v: {templatingValueFrom: {configMapKeyRef: {name: weird, key: n}}}`, wantErr: "data value is a number, not a string"},
		{name: "node fixture sanity", in: `v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Node, name: n1, path: .status.allocatable.memory}}}`, want: `v: 32Gi`},
	})
}

func TestUsesAndSources(t *testing.T) {
	t.Parallel()
	in := value(t, `
spec:
  size: {templatingValueFrom: {configMapKeyRef: {name: cm, key: num}, default: {secretKeyRef: {name: sec, key: pw}}}}
  pw: {templatingValueFrom: {secretKeyRef: {name: sec, key: pw}}}
  gone: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: nope, path: .spec.host}}}
items:
- {host: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: svc, path: .spec.host}}}}
- {}
- {host: {templatingValueFrom: {conditional: {expression: {equal: {left: {secretKeyRef: {name: sec, key: pw}}, right: {literal: x}}}, then: {literal: a}, else: {array: [{map: {k: {secretKeyRef: {name: sd, key: k}}}}]}}}}}
"a.b": {c: {templatingValueFrom: {boolean: true}}}
`)
	o := resolve(t, in, newReader(t, fixtures))
	require.NoError(t, o.err)
	assertNoSecret(t, o)
	assert.Equal(t, value(t, `
spec: {size: "42", pw: `+planted+`}
items: [{host: svc.example}, {}, {host: [{k: new}]}]
"a.b": {c: true}
`), o.out)
	for i, u := range o.uses {
		assert.Equal(t, manifest.SplitPath(u.Path), u.Steps, "Steps is Path as steps")
		o.uses[i].Steps = nil
	}
	sec := template.Source{Ref: "secretKeyRef", APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "sec", Key: "pw", Found: true}
	assert.Equal(t, []template.Use{
		{Path: `["a.b"].c`, Value: "true"},
		{Path: "items[0].host", Value: "svc.example", Sources: []template.Source{
			{Ref: "objectRef", APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "svc", Path: ".spec.host", Found: true}}},
		{Path: "items[2].host", Secret: true, Sources: []template.Source{sec,
			{Ref: "secretKeyRef", APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "sd", Key: "k", Found: true}}},
		{Path: "spec.gone", Sources: []template.Source{
			{Ref: "objectRef", APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "nope", Path: ".spec.host"}}},
		{Path: "spec.pw", Secret: true, Sources: []template.Source{sec}},
		{Path: "spec.size", Value: "42", Sources: []template.Source{sec,
			{Ref: "configMapKeyRef", APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm", Key: "num", Found: true}}},
	}, o.uses)
}

func TestSecretConditionDoesNotTaintALiteral(t *testing.T) {
	t.Parallel()
	in := value(t, `v: {templatingValueFrom: {conditional: {expression: {equal: {left: {secretKeyRef: {name: sec, key: pw}}, right: {literal: "`+planted+`"}}}, then: {literal: matched}}}}`)
	// The template itself names the planted value here; only check the outcome.
	out, uses, err := template.Resolve(in, template.Context{Namespace: "ns", Reader: newReader(t, fixtures)})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"v": "matched"}, out)
	require.Len(t, uses, 1)
	assert.False(t, uses[0].Secret)
	assert.Equal(t, "matched", uses[0].Value)
}

func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`v: {templatingValueFrom: {secretKeyRef: {name: sec, key: pw}}}`,
		`v: {templatingValueFrom: {secretKeyRef: {name: sec, key: pw}, required: true}}`,
		`v: {templatingValueFrom: {secretKeyRef: {name: bad, key: k}}}`,
		`v: {templatingValueFrom: {default: {secretKeyRef: {name: bad, key: k}}}}`,
		`v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Secret, name: sec, path: .data.pw}}}`,
		`v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Secret, name: sec, path: .data}}}`,
		`v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Secret, name: sec, path: '.data.pw[3]'}}}`,
		`v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Secret, name: sec, path: '.data[?(@.x=="y")]'}}}`,
		`v: {templatingValueFrom: {conditional: {expression: {value: {secretKeyRef: {name: sec, key: pw}}}, then: {secretKeyRef: {name: sec, key: pw}}}}}`,
		`v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {array: [{secretKeyRef: {name: sec, key: pw}}, {map: {k: {secretKeyRef: {name: sd, key: only-data}}}}]}}}}`,
		`v: {templatingValueFrom: {conditional: {expression: {greaterThan: {left: {secretKeyRef: {name: sec, key: pw}}, right: {secretKeyRef: {name: bad, key: k}}}}}}}`,
		`v: {templatingValueFrom: {default: {secretKeyRef: {name: sec, key: pw}}, required: true}}`,
	} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			o := resolve(t, value(t, in), newReader(t, fixtures))
			assertNoSecret(t, o)
			for _, u := range o.uses {
				for _, s := range u.Sources {
					if s.Kind == "Secret" && o.out.(map[string]any)["v"] != nil {
						assert.True(t, u.Secret)
						assert.Empty(t, u.Value)
					}
				}
			}
		})
	}
}

func TestReaderErrorsPropagate(t *testing.T) {
	t.Parallel()
	boom := errors.New("forbidden: cannot get configmaps")
	r := newReader(t, fixtures)
	r.fail["/ConfigMap/ns/cm"] = boom
	o := resolve(t, value(t, `spec: {a: {b: `+cm("a")+`}}`), r)
	require.Error(t, o.err)
	assert.ErrorIs(t, o.err, boom)
	var te *template.Error
	require.ErrorAs(t, o.err, &te)
	assert.Equal(t, "spec.a.b", te.Path)
	assert.False(t, te.Required)
	require.NotNil(t, te.Ref)
	assert.Equal(t, "cm", te.Ref.Name)
	assert.Equal(t, `spec.a.b: configMapKeyRef: read ConfigMap ns/cm key "a": forbidden: cannot get configmaps`, o.err.Error())

	// An error while reading inside `default` is swallowed, as ODLM logs and ignores it.
	o = resolve(t, value(t, `v: {templatingValueFrom: {default: {configMapKeyRef: {name: cm, key: a}}, secretKeyRef: {name: sd, key: k}}}`), r)
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{"v": "new"}, o.out)
	assert.Contains(t, o.uses[0].DefaultError, "forbidden")

	// No reader at all: reads fail, the rest works.
	_, _, err := template.Resolve(value(t, `v: `+cm("a")), template.Context{Namespace: "ns"})
	require.Error(t, err)
	out, _, err := template.Resolve(value(t, `v: {templatingValueFrom: {boolean: true}}`), template.Context{Namespace: "ns"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"v": true}, out)
}

func TestRequiredErrorCarriesTheRef(t *testing.T) {
	t.Parallel()
	o := resolve(t, value(t, `spec: {host: {templatingValueFrom: {required: true, configMapKeyRef: {name: cm, key: none}, objectRef: {apiVersion: route.openshift.io/v1, kind: Route, name: r, path: .spec.host}}}}`), newReader(t, fixtures))
	var te *template.Error
	require.ErrorAs(t, o.err, &te)
	assert.True(t, te.Required)
	assert.Equal(t, "spec.host", te.Path)
	route := template.Source{Ref: "objectRef", APIVersion: "route.openshift.io/v1", Kind: "Route", Namespace: "ns", Name: "r", Path: ".spec.host"}
	assert.Equal(t, &route, te.Ref, "the highest-precedence ref is the one named")
	assert.Equal(t, []template.Source{
		{Ref: "configMapKeyRef", APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm", Key: "none", Found: true}, route}, te.Sources)
	assert.Contains(t, te.Error(), "Route not found")
}

func TestWalkErrorsAreDeterministic(t *testing.T) {
	t.Parallel()
	in := value(t, `{b: {templatingValueFrom: {required: true}}, a: {templatingValueFrom: {conditional: {}}}}`)
	for i := 0; i < 20; i++ {
		_, _, err := template.Resolve(in, template.Context{Namespace: "ns"})
		require.Error(t, err)
		assert.Equal(t, "a: unsupported conditional type: conditional has no expression", err.Error())
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	deep := `{"literal": "x"}`
	expr := `{"value": {"literal": "true"}}`
	for i := 0; i < template.MaxExpressionDepth+1; i++ {
		expr = `{"not": ` + expr + `}`
	}
	v, err := manifest.DecodeJSONValue([]byte(`{"a": {"templatingValueFrom": {"conditional": {"expression": ` + expr + `, "then": ` + deep + `}}}}`))
	require.NoError(t, err)
	_, _, err = template.Resolve(v, template.Context{Namespace: "ns"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a: expression nested deeper than 64 levels")

	items := strings.Repeat(`{"literal": "x"},`, template.MaxArrayItems) + `{"literal": "x"}`
	v, err = manifest.DecodeJSONValue([]byte(`{"a": {"templatingValueFrom": {"conditional": {"expression": {"value": {"literal": "true"}}, "then": {"array": [` + items + `]}}}}}`))
	require.NoError(t, err)
	_, _, err = template.Resolve(v, template.Context{Namespace: "ns"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a: array has 10001 items; at most 10000 are allowed")
}

func TestASecretNamedUnderAnotherCoreVersionIsAnErrorNotARead(t *testing.T) {
	t.Parallel()
	for _, apiVersion := range []string{"v2", "/v1", "v1beta1"} {
		ref := `{apiVersion: "` + apiVersion + `", kind: Secret, name: sec, path: .data.pw}`
		for name, in := range map[string]string{
			"standard":    `v: {templatingValueFrom: {objectRef: ` + ref + `}}`,
			"branch":      `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {objectRef: ` + ref + `}}}}`,
			"array":       `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {array: [{objectRef: ` + ref + `}]}}}}`,
			"expression":  `v: {templatingValueFrom: {conditional: {expression: {value: {objectRef: ` + ref + `}}, then: {literal: x}}}}`,
			"in default":  `v: {templatingValueFrom: {default: {objectRef: ` + ref + `}}}`,
			"with others": `v: {templatingValueFrom: {configMapKeyRef: {name: cm, key: a}, objectRef: ` + ref + `}}`,
		} {
			t.Run(apiVersion+"/"+name, func(t *testing.T) {
				t.Parallel()
				r := newReader(t, fixtures)
				o := resolve(t, value(t, in), r)
				assertNoSecret(t, o)
				assert.NotContains(t, r.reads, "/Secret/ns/sec", "the Secret is never read")
				if name == "in default" {
					// ODLM ignores errors inside default: the value is "", the error is said
					require.NoError(t, o.err)
					require.Len(t, o.uses, 1)
					assert.Contains(t, o.uses[0].DefaultError, `apiVersion "`+apiVersion+`"`)
					return
				}
				require.Error(t, o.err)
				assert.Contains(t, o.err.Error(), `objectRef: `+apiVersion+` Secret ns/sec path ".data.pw": apiVersion "`+apiVersion+`"`)
			})
		}
	}
}

// markedReader is the fixtures with ConfigMap ns/cm's data.a and Service ns/svc's spec.host
// marked as holding a Secret's value (the render wrote one there).
func markedReader(t *testing.T) *memReader {
	r := newReader(t, fixtures)
	r.mark("v1", "ConfigMap", "ns", "cm", "data.a")
	r.mark("v1", "Service", "ns", "svc", "spec.host")
	return r
}

func TestReadsOfMarkedFieldsAreReadsOfASecret(t *testing.T) {
	t.Parallel()
	cmRef := func(path string) string {
		return `{apiVersion: v1, kind: ConfigMap, name: cm, path: '` + path + `'}`
	}
	for _, tc := range []struct {
		name   string
		in     string
		secret bool
	}{
		{"configMapKeyRef of the marked key", `v: ` + cm("a"), true},
		{"configMapKeyRef of another key", `v: ` + cm("num"), false},
		{"objectRef of the marked field", `v: {templatingValueFrom: {objectRef: ` + cmRef(".data.a") + `}}`, true},
		{"objectRef of the map holding it", `v: {templatingValueFrom: {objectRef: ` + cmRef(".data") + `}}`, true},
		{"objectRef of a wildcard", `v: {templatingValueFrom: {objectRef: ` + cmRef(".data.*") + `}}`, true},
		{"objectRef concatenating it", `v: {templatingValueFrom: {objectRef: ` + cmRef("x-+.data.a") + `}}`, true},
		{"objectRef of a field beside it", `v: {templatingValueFrom: {objectRef: ` + cmRef(".data.num") + `}}`, false},
		{"objectRef of metadata", `v: {templatingValueFrom: {objectRef: ` + cmRef(".metadata.name") + `}}`, false},
		{"objectRef of another object's marked field", `v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: svc, path: .spec}}}`, true},
		{"default", `v: {templatingValueFrom: {default: {configMapKeyRef: {name: cm, key: a}}}}`, true},
		{"default overridden by an unmarked value", `v: {templatingValueFrom: {default: {configMapKeyRef: {name: cm, key: a}}, configMapKeyRef: {name: cm, key: num}}}`, false},
		{"branch", `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {configMapKeyRef: {name: cm, key: a}}}}}`, true},
		{"array", `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {array: [{literal: x}, {configMapKeyRef: {name: cm, key: a}}]}}}}`, true},
		{"array map", `v: {templatingValueFrom: {conditional: {expression: {value: {literal: "1"}}, then: {array: [{map: {k: {configMapKeyRef: {name: cm, key: a}}}}]}}}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := resolve(t, value(t, tc.in), markedReader(t))
			require.NoError(t, o.err)
			require.Len(t, o.uses, 1)
			u := o.uses[0]
			assert.Equal(t, tc.secret, u.Secret)
			if tc.secret {
				assert.Empty(t, u.Value, "a Secret's value is never in a Use")
				tainted := false
				for _, s := range u.Sources {
					tainted = tainted || s.Tainted
				}
				assert.True(t, tainted, "the source that gave it says so")
			}
		})
	}
}

func TestPathErrorsOnMarkedObjectsSayNothingOfTheirValues(t *testing.T) {
	t.Parallel()
	o := resolve(t, value(t, `v: {templatingValueFrom: {objectRef: {apiVersion: v1, kind: Service, name: svc, path: '.spec.ports[5].port'}}}`), markedReader(t))
	require.Error(t, o.err)
	assert.Equal(t, `v: objectRef: v1 Service ns/svc path ".spec.ports[5].port": the path cannot be evaluated on an object that holds a value from a Secret`, o.err.Error())
}
