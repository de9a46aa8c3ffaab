package manifest_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

func TestDecodeKeepsNumbersExact(t *testing.T) {
	t.Parallel()
	objs, err := manifest.Decode("in.yaml", []byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data:
  big: 12345678901234567890
  float: 1.50
  exp: 1e3
  hex: 0x1F
  str: "12"
  yes: yes
  b: true
  n: null
`))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	d := objs[0].Map["data"].(map[string]any)
	assert.Equal(t, json.Number("12345678901234567890"), d["big"])
	assert.Equal(t, json.Number("1.50"), d["float"])
	assert.Equal(t, json.Number("1e3"), d["exp"])
	assert.Equal(t, json.Number("31"), d["hex"])
	assert.Equal(t, "12", d["str"])
	assert.Equal(t, "yes", d["yes"])
	assert.Equal(t, true, d["b"])
	assert.Nil(t, d["n"])
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"syntax error has a line", "a: b\nc: [\n", "bad.yaml:2: invalid YAML/JSON"},
		{"scalar document", "just text\n", "bad.yaml:1: document 0 is a scalar, not a mapping"},
		{"duplicate key", "a: 1\na: 2\n", `bad.yaml:2: duplicate key "a"`},
		{"infinity", "a: .inf\n", `bad.yaml:1: number ".inf" cannot be represented in JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Decode("bad.yaml", []byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecodeFlattensListsAndSkipsEmptyDocuments(t *testing.T) {
	t.Parallel()
	objs, err := manifest.Decode("l.yaml", []byte("---\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n"))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "Secret", objs[0].Kind())
	assert.Equal(t, 9, objs[1].Source.Line)
}

func TestLineOf(t *testing.T) {
	t.Parallel()
	objs, err := manifest.Decode("f.yaml", []byte("apiVersion: v1\nkind: X\nmetadata:\n  name: x\n  annotations:\n    a.b/c: d\nspec:\n  list:\n  - one\n  - two: 2\n"))
	require.NoError(t, err)
	src := objs[0].Source
	assert.Equal(t, 1, src.LineOf(""))
	assert.Equal(t, 4, src.LineOf("metadata.name"))
	assert.Equal(t, 6, src.LineOf(manifest.Field("metadata.annotations", "a.b/c")))
	assert.Equal(t, 10, src.LineOf("spec.list[1].two"))
	assert.Equal(t, 8, src.LineOf("spec.list[7]"), "a missing element points at its parent")
}

func TestMarshalYAMLIsStable(t *testing.T) {
	v := map[string]any{
		"b": "true", "a": json.Number("10"), "c": []any{"x", map[string]any{"z": nil, "y": "0x1"}},
		"d": "multi\nline\n", "e": "", "f": "yes", "g": "1:20",
	}
	out, err := manifest.MarshalYAML(v)
	require.NoError(t, err)
	assert.Equal(t, "a: 10\nb: \"true\"\nc:\n- x\n- y: \"0x1\"\n  z: null\nd: |\n  multi\n  line\ne: \"\"\nf: \"yes\"\ng: \"1:20\"\n", string(out))
	back, err := manifest.Decode("x", out)
	require.NoError(t, err)
	assert.Equal(t, v, back[0].Map)
}

func TestSortIgnoresInputOrder(t *testing.T) {
	mk := func(kind, ns, name string) *manifest.Object {
		return manifest.New(map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}})
	}
	a := []*manifest.Object{mk("ConfigMap", "b", "x"), mk("Subscription", "a", "s"), mk("Namespace", "", "n"), mk("ConfigMap", "a", "y")}
	b := []*manifest.Object{a[3], a[2], a[1], a[0]}
	manifest.Sort(a)
	manifest.Sort(b)
	var ba, bb bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&ba, a))
	require.NoError(t, manifest.WriteYAML(&bb, b))
	assert.Equal(t, ba.String(), bb.String())
	assert.Equal(t, "Namespace", a[0].Kind())
}

func TestDecodeRefusesAliasBombsAndSelfReference(t *testing.T) {
	t.Parallel()
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	_, err := manifest.Decode("bomb.yaml", []byte(bomb))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "too large after alias expansion")

	_, err = manifest.Decode("self.yaml", []byte("a: &x\n  b: *x\n"))
	require.Error(t, err)
}

// TestLineOfLaterDocumentsAndListItems: lines are found by parsing a document again from its
// root's line, so they must be right in any document of a stream and in List items.
func TestLineOfLaterDocumentsAndListItems(t *testing.T) {
	t.Parallel()
	stream := "# header\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n# comment\n" +
		"apiVersion: v1\nkind: B\nmetadata:\n  name: b\n" + // doc 1: lines 7-10
		"--- {apiVersion: v1, kind: C,\n  metadata: {name: c}}\n" + // doc 2: lines 11-12
		"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: D\n  metadata:\n    name: d\n- {apiVersion: v1, kind: E, metadata: {name: e}}\n" // lines 13-21
	for name, data := range map[string]string{"lf": stream, "crlf": strings.ReplaceAll(stream, "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs, err := manifest.Decode("f.yaml", []byte(data))
			require.NoError(t, err)
			lines := map[string][2]int{}
			for _, o := range objs {
				lines[o.Kind()] = [2]int{o.Source.Line, o.Source.LineOf("metadata.name")}
			}
			assert.Equal(t, map[string][2]int{"A": {2, 4}, "B": {7, 10}, "C": {11, 12}, "D": {17, 20}, "E": {21, 21}}, lines)
		})
	}
}
