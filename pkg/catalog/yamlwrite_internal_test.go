package catalog

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// FuzzYAMLWriter: any string, as a key or a value, in block or flow
// context, reads back as written (by yaml.v3, through the converter the
// decoder uses).
func FuzzYAMLWriter(f *testing.F) {
	for _, s := range []string{"", "plain", "yes", "010", "1.10", "a: b", "#x", "x #y", " lead", "trail ", "multi\nline\n", "keep\n\n",
		"\ttab", "\x7f", "\u0085", "\u2028", "é", "😀", "\"q\"", `b\s`, "<<", "-", "- x", "[a]", "{a}", "a,b", "a:b", "~", "null", ".inf", "2021-02-21"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // strings in catalogs come from YAML or JSON: valid UTF-8
		}
		tree := map[string]any{s: []any{s, map[string]any{"k": s, s: json.Number("1")}, nil}, "n": s}
		w := &yamlWriter{}
		rec := record{{"tree", jsonNull{tree}}, {"flow", flowRecord{{"a", s}, {"b", true}}}, {"list", flowList{s, s}}, {"s", s}}
		require.NoError(t, w.value(rec, 0, false))
		var doc yaml.Node
		if err := yaml.Unmarshal(w.buf, &doc); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, w.buf)
		}
		v, err := manifest.NodeValue(&doc)
		require.NoError(t, err, "%s", w.buf)
		m := v.(map[string]any)
		require.Equal(t, tree, m["tree"], "%s", w.buf)
		if s != "" {
			require.Equal(t, map[string]any{"a": s, "b": true}, m["flow"], "%s", w.buf)
			require.Equal(t, []any{s, s}, m["list"], "%s", w.buf)
			require.Equal(t, s, m["s"], "%s", w.buf)
		}
	})
}
