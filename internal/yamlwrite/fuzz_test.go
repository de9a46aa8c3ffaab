package yamlwrite_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// trickyStrings are scalars yaml.v3 writes in every style, and keys it writes in every way.
var trickyStrings = []string{"", "plain", "kube-green", "1-5", "20:00", "1:20", "y", "n", "yes", "No", "ON", "true", "null", "~", "nan", ".inf",
	"1e3", "0x1F", "010", "1.10", "-", "- x", "-x", "a: b", "#x", "x #y", " lead", "trail ", "multi\nline", "keep\n\n", "\n", "\n\nx", " a\nb",
	"a\nb ", "a \nb", "\t\n", "a\n\t", "a\n \t\nb", "a\n b", "a\t\nb", "\ttab", "x\ty", "é", "😀", "\"q\"", "it's", `b\s`, "<<", "[a]", "{a}", "a,b", "a:b", "2021-02-21",
	"=", "?", "? x", "@x", "`x", "%x", "!x", "&x", "*x", "|", ">", "---", "...x", strings.Repeat("k", 130), strings.Repeat("word ", 30),
	"\x7f", "\x00", "\x1b", "\u0085", "\u00a0", "\u2028", "a\u2028b", "a\nb\u2029c", "\ufeffab", "a\ufeff", "\uffff", "a\x00b", "inf", "Null",
	"TRUE", "0o17", "+1", ".5", "5.", "Yes", "NULL", "True", "Off", "N", "Y", "NaN", "Inf", "apiVersion", "a/b", "A_b", "a/", "a//b", "x_",
	"operator.ibm.com/opreq-control", "team-1.team-1.nfs/request", "12345678901234567890", "1_000", "0b101", "+.inf", "-.Inf"}

// tree builds a value tree from fuzz bytes: maps, lists, tricky or raw strings, numbers,
// booleans and nulls, a few levels deep.
func tree(data []byte, raw string, depth int) (any, []byte) {
	if len(data) == 0 {
		return raw, data
	}
	b := data[0]
	data = data[1:]
	switch b % 9 {
	case 0, 1:
		if depth > 4 {
			return nil, data
		}
		m := map[string]any{}
		for i := 0; i < int(b/9%4) && len(data) > 0; i++ {
			k := raw
			if data[0]%3 != 0 {
				k = trickyStrings[int(data[0])%len(trickyStrings)]
			}
			m[k], data = tree(data[1:], raw, depth+1)
		}
		return m, data
	case 2:
		if depth > 4 {
			return raw, data
		}
		l := []any{}
		for i := 0; i < int(b/9%4) && len(data) > 0; i++ {
			var e any
			e, data = tree(data, raw, depth+1)
			l = append(l, e)
		}
		return l, data
	case 3:
		return nil, data
	case 4:
		return b%2 == 0, data
	case 5:
		return json.Number([]string{"0", "1", "-3", "1.5", "1e3", "12345678901234567890", "-1.5E-7", "123456789012345678901234567890"}[int(b)%8]), data
	case 6:
		return raw, data
	default:
		return trickyStrings[int(b)%len(trickyStrings)], data
	}
}

// FuzzWriter: for any value tree, what the writer writes (1) reads back with yaml.v3 as the
// same tree, in block and flow context, and (2) is what yaml.v3's encoder writes with the project's settings (reference).
func FuzzWriter(f *testing.F) {
	f.Add([]byte{0, 7, 8, 2, 7, 0, 16, 9, 2, 25}, "x")
	f.Add([]byte{9, 7, 2, 2, 7, 7, 18, 0, 7}, "a b")
	f.Add([]byte{18, 1, 5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, "\u2028 x\n")
	for i := range trickyStrings {
		f.Add([]byte{9, byte(3*i + 1), 7, 2}, trickyStrings[i])
	}
	f.Fuzz(func(t *testing.T, data []byte, raw string) {
		if !utf8.ValidString(raw) {
			return // values come from YAML or JSON: valid UTF-8
		}
		v, _ := tree(data, raw, 0)
		m, ok := v.(map[string]any)
		if !ok {
			m = map[string]any{"v": v}
		}
		w := &yamlwrite.Writer{}
		require.NoError(t, w.Document(m))
		if !unreadableInV3(m) {
			require.Equal(t, reference(t, m), string(w.Bytes()))
		}
		require.Equal(t, m, readBack(t, w.Bytes()), "%s", w.Bytes())

		w = &yamlwrite.Writer{}
		rec := record{{"tree", null{m}}}
		if raw != "tree" && raw != "flow" && raw != "list" && raw != "b" { // keys stay distinct
			rec = append(rec, field{raw, raw}, field{"flow", flowRecord{{"a", raw}, {"b", true}}}, field{"list", yamlwrite.FlowList{raw, raw}})
		}
		require.NoError(t, w.Document(rec))
		back := readBack(t, w.Bytes()).(map[string]any)
		require.Equal(t, m, back["tree"], "%s", w.Bytes())
		if len(rec) > 1 && raw != "" {
			require.Equal(t, raw, back[raw], "%s", w.Bytes())
			require.Equal(t, map[string]any{"a": raw, "b": true}, back["flow"], "%s", w.Bytes())
			require.Equal(t, []any{raw, raw}, back["list"], "%s", w.Bytes())
		}
	})
}

func readBack(t *testing.T, text []byte) any {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(text, &doc), "%s", text)
	v, err := manifest.NodeValue(&doc)
	require.NoError(t, err, "%s", text)
	return v
}

// reference is what yaml.v3's encoder writes for a value tree, with the project's settings
// (indent 2, compact sequences, keys in byte order) and YAML 1.1 booleans and sexagesimal
// numbers double-quoted.
func reference(t *testing.T, v any) string {
	t.Helper()
	b, err := manifest.MarshalNode(referenceNode(v))
	require.NoError(t, err)
	return string(b)
}

func referenceNode(v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}
		if v {
			n.Value = "true"
		}
		return n
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(v), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if !strings.Contains(v, "\n") && yaml11Special(v) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range manifest.SortedKeys(v) {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, referenceNode(v[k]))
		}
		return n
	default:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range v.([]any) {
			n.Content = append(n.Content, referenceNode(e))
		}
		return n
	}
}

// yaml11Special: the YAML 1.1 booleans, and sexagesimal numbers (1:20).
func yaml11Special(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF":
		return true
	}
	return base60.MatchString(s)
}

var base60 = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)

// unreadableInV3 reports trees where the writer differs from yaml.v3 on purpose, because
// what yaml.v3 writes does not read back: the key << (a merge key when plain) and text with a
// blank line holding a tab or a line or paragraph separator (yaml.v3's literal block does not
// read back).
func unreadableInV3(v any) bool {
	switch x := v.(type) {
	case string:
		if n := (yaml.Node{Kind: yaml.ScalarNode, Value: x}); yamlwrite.FloatSyntax(x) && n.ShortTag() == "!!str" {
			return true // a number past float64 that yaml.v3 writes plain and reads as a string
		}
		if !strings.Contains(x, "\n") {
			return false
		}
		if strings.ContainsAny(x, "\u2028\u2029") || x[0] == '\t' {
			return true // yaml.v3 writes a literal block it reads as indentation
		}
		for line := range strings.SplitSeq(x, "\n") {
			if strings.Trim(line, " \t") == "" && strings.Contains(line, "\t") {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if k == "<<" || unreadableInV3(k) || unreadableInV3(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if unreadableInV3(e) {
				return true
			}
		}
	}
	return false
}

// The writer's Fields, FlowFields and Nullable, as a caller implements them.
type (
	field struct {
		key   string
		value any
	}
	record     []field
	flowRecord []field
	null       struct{ v any }
)

func (r record) Len() int                      { return len(r) }
func (r record) Field(i int) (string, any)     { return r[i].key, r[i].value }
func (r flowRecord) Len() int                  { return len(r) }
func (r flowRecord) Field(i int) (string, any) { return r[i].key, r[i].value }
func (flowRecord) OneLine()                    {}
func (n null) OrNull() any                     { return n.v }
