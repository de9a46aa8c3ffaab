package krm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// compact is a ResourceList as kpt and kustomize write it: block style, compact lists.
const compact = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
# a comment before the first item
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a # the name
    annotations:
      config.kubernetes.io/path: 'a.yaml'
      internal.config.kubernetes.io/path: 'a.yaml'
      config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/index: '1'
  data:
    script: |
      line one

        indented line
    list:
    - x
-
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: b}
  data: {"k": "v"}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: fn
  data:
    catalogs: c
`

// variants of compact that must decode to the same items and functionConfig.
var variants = map[string]string{
	"wide lists": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: fn
  data:
    catalogs: c
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: a
      annotations:
        config.kubernetes.io/path: 'a.yaml'
        internal.config.kubernetes.io/path: 'a.yaml'
        config.kubernetes.io/index: '1'
        internal.config.kubernetes.io/index: '1'
    data:
      script: |
        line one

          indented line
      list:
        - x
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: b}, data: {k: v}}
`,
	"json": `{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [
 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "annotations": {"config.kubernetes.io/path": "a.yaml",
  "internal.config.kubernetes.io/path": "a.yaml", "config.kubernetes.io/index": "1", "internal.config.kubernetes.io/index": "1"}},
  "data": {"script": "line one\n\n  indented line\n", "list": ["x"]}},
 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}, "data": {"k": "v"}}],
 "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"}, "data": {"catalogs": "c"}}}
`,
	"crlf": strings.ReplaceAll(compact, "\n", "\r\n"),
	"alias between items": strings.Replace(strings.Replace(compact, "    list:\n    - x\n", "    list: &l\n    - x\n", 1),
		`data: {"k": "v"}`, `data: {"k": "v", "list": *l}`, 1),
}

func values(t *testing.T, rl *ResourceList) []any {
	t.Helper()
	out := []any{rl.APIVersion, nil}
	if rl.FunctionConfig != nil {
		out[1] = rl.FunctionConfig.Map
	}
	for _, it := range rl.Items {
		out = append(out, it.Object.Map, it.Object.Source)
	}
	return out
}

func TestParseLayoutsAgree(t *testing.T) {
	t.Parallel()
	want, err := Parse([]byte(compact))
	require.NoError(t, err)
	_, ok := parseByItem([]byte(compact))
	require.True(t, ok, "the kpt/kustomize layout is parsed item by item")
	require.Len(t, want.Items, 2)
	assert.Equal(t, manifest.Source{File: "a.yaml", Index: 1}, want.Items[0].Object.Source)
	whole, err := parseWhole([]byte(compact))
	require.NoError(t, err)
	assert.Equal(t, values(t, whole), values(t, want))

	for name, in := range variants {
		t.Run(name, func(t *testing.T) {
			got, err := Parse([]byte(in))
			require.NoError(t, err)
			fresh, err := Parse([]byte(compact))
			require.NoError(t, err)
			wantItems := values(t, fresh)
			if name == "alias between items" {
				wantItems[4].(map[string]any)["data"].(map[string]any)["list"] = []any{"x"}
				_, ok := parseByItem([]byte(in))
				assert.False(t, ok, "an alias to another item's anchor is parsed as a whole")
			}
			assert.Equal(t, wantItems, values(t, got))
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "ResourceList: empty input: expected a ResourceList"},
		{"not a mapping", "- a\n", "ResourceList:1: the input is not a ResourceList (a mapping with kind: ResourceList)"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMapList\nitems: []\n", `ResourceList:2: kind is "ConfigMapList", not ResourceList`},
		{"no kind", "apiVersion: v1\nitems: []\n", "ResourceList:1: the input is not a ResourceList: kind is missing"},
		{"two documents", "kind: ResourceList\n---\nkind: ResourceList\n", "ResourceList:3: more than one document: expected a single ResourceList"},
		{"items not a list", "kind: ResourceList\nitems: {a: b}\n", "ResourceList:2: items is not a list"},
		{"item not a mapping", "kind: ResourceList\nitems:\n- a\n- b\n", "ResourceList:3: items[0] is not a mapping"},
		{"syntax error", "kind: ResourceList\nitems:\n- a: b\n  c: [\n", "ResourceList:4: invalid YAML/JSON: did not find expected node content"},
		{"duplicate key", "kind: ResourceList\nitems:\n- a: b\n  a: c\n", `items[0]: ResourceList:4: duplicate key "a"`},
		{"two functionConfigs", "kind: ResourceList\nfunctionConfig: {a: b}\nitems: []\nfunctionConfig: {a: c}\n", `ResourceList:4: duplicate key "functionConfig"`},
		{"two item lists", "kind: ResourceList\nitems:\n- a: b\nitems:\n- a: c\n", `ResourceList:4: duplicate key "items"`},
		{"two kinds", "kind: ResourceList\napiVersion: v1\nkind: ResourceList\n", `ResourceList:3: duplicate key "kind"`},
		{"functionConfig not a mapping", "kind: ResourceList\nfunctionConfig: [a]\n", "ResourceList:2: functionConfig is not a mapping"},
		{"alias bomb", "kind: ResourceList\nitems:\n- a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n  e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
			"document too large after alias expansion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// FuzzParseByItemAgrees: whenever the item-by-item parse accepts an input, the whole-document
// parse accepts it too and gives the same values.
func FuzzParseByItemAgrees(f *testing.F) {
	f.Add([]byte(compact))
	for _, v := range variants {
		f.Add([]byte(v))
	}
	f.Add([]byte("kind: ResourceList\nitems:\n- a: \"x\n- b: y\"\n"))
	f.Add([]byte("kind: ResourceList\nitems:\n- a: |\n    x\n  # c\n- b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		byItem, ok := parseByItem(data)
		if !ok {
			return
		}
		whole, err := parseWhole(data)
		require.NoError(t, err, "accepted item by item but not as a whole:\n%s", data)
		assert.Equal(t, values(t, whole), values(t, byItem), "%s", data)
	})
}

func TestWriterKeepsItemsAsTheyCame(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{"block": compact, "json": variants["json"], "alias": variants["alias between items"]} {
		t.Run(name, func(t *testing.T) {
			rl, err := Parse([]byte(in))
			require.NoError(t, err)
			var out bytes.Buffer
			w := rl.NewWriter(&out)
			for _, it := range rl.Items {
				w.Keep(it)
			}
			require.NoError(t, w.Close(nil))
			if name == "block" {
				assert.Contains(t, out.String(), "    name: a # the name\n", "comments are kept")
				assert.Contains(t, out.String(), "-\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: {\"k\": \"v\"}\n", "styles are kept")
			}
			again, err := Parse(out.Bytes())
			require.NoError(t, err, out.String())
			assert.Equal(t, values(t, rl), values(t, again))
		})
	}
}

func TestWriterAnnotationFormat(t *testing.T) {
	t.Parallel()
	item := func(annotations string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n" + annotations
	}
	for _, tc := range []struct {
		name, items string
		want        map[string]any // the added object's annotations; nil for none
	}{
		{"no items: both families", "", map[string]any{PathAnnotation: "p.yaml", LegacyPathAnnotation: "p.yaml", IndexAnnotation: "2", LegacyIndexAnnotation: "2"}},
		{"internal only", item("    annotations: {internal.config.kubernetes.io/path: a.yaml}\n"), map[string]any{PathAnnotation: "p.yaml", IndexAnnotation: "2"}},
		{"legacy only", item("    annotations: {config.kubernetes.io/path: a.yaml}\n"), map[string]any{LegacyPathAnnotation: "p.yaml", LegacyIndexAnnotation: "2"}},
		{"both", item("    annotations: {config.kubernetes.io/path: a.yaml, internal.config.kubernetes.io/path: a.yaml}\n"),
			map[string]any{PathAnnotation: "p.yaml", LegacyPathAnnotation: "p.yaml", IndexAnnotation: "2", LegacyIndexAnnotation: "2"}},
		{"items without any: none", item(""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + tc.items
			rl, err := Parse([]byte(in))
			require.NoError(t, err)
			obj := manifest.New(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "new"}})
			obj.SetMetadataString("annotations", PathAnnotation, "p.yaml")
			obj.SetMetadataString("annotations", LegacyIndexAnnotation, "2")
			var out bytes.Buffer
			w := rl.NewWriter(&out)
			w.Add(obj)
			require.NoError(t, w.Close(nil))
			back, err := Parse(out.Bytes())
			require.NoError(t, err)
			added := back.Items[len(back.Items)-1].Object
			got, _ := manifest.Get(added.Map, "metadata", "annotations").(map[string]any)
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestListIsAnsweredAsList(t *testing.T) {
	t.Parallel()
	rl, err := Parse([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"))
	require.NoError(t, err)
	var out bytes.Buffer
	w := rl.NewWriter(&out)
	w.Keep(rl.Items[0])
	require.NoError(t, w.Close(nil))
	assert.Equal(t, "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", out.String())
}

func TestWriterResults(t *testing.T) {
	t.Parallel()
	rl, err := Parse([]byte("kind: ResourceList\nitems: []\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fn}}\n"))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, rl.NewWriter(&out).Close([]Result{
		{Severity: "error", Message: "bad: \"quoted\"", ResourceRef: &manifest.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a"}, Field: "data.x", File: "a.yaml", Index: 3},
		{Severity: "info", Message: "run-wide"},
	}))
	assert.Equal(t, `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  {apiVersion: v1, kind: ConfigMap, metadata: {name: fn}}
results:
- field:
    path: data.x
  file:
    index: 3
    path: a.yaml
  message: 'bad: "quoted"'
  resourceRef:
    apiVersion: v1
    kind: ConfigMap
    name: a
    namespace: ns
  severity: error
- message: run-wide
  severity: info
`, out.String())
}
