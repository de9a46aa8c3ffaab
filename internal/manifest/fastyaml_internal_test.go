package manifest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trickyStrings are scalars yaml.v3 writes in every style.
var trickyStrings = []string{"", "plain", "kube-green", "1-5", "20:00", "y", "n", "yes", "No", "ON", "true", "null", "~", "nan", ".inf",
	"1e3", "0x1F", "010", "1.10", "-", "- x", "a: b", "#x", "x #y", " lead", "trail ", "multi\nline", "keep\n\n", "\ttab",
	"é", "😀", "\"q\"", "it's", `b\s`, "<<", "[a]", "{a}", "a,b", "a:b", "2021-02-21", "=", "?", "@x", "`x", "%x", "!x", "&x", "*x", "|", ">",
	strings.Repeat("k", 130), strings.Repeat("word ", 30), "\x7f", "\u0085", "\u2028", "a\x00b", "inf", "Null", "TRUE", "0o17", "+1", ".5", "5.",
	"Yes", "NULL", "True", "Off", "N", "Y", "NaN", "Inf", "apiVersion", "a/b", "A_b", "a/", "a//b", "x_", "operator.ibm.com/opreq-control", "team-1.team-1.nfs/request"}

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
			var k any
			k, data = tree(data, raw, 99) // a scalar
			ks, _ := k.(string)
			if ks == "" && len(data) > 0 {
				ks = trickyStrings[int(data[0])%len(trickyStrings)]
			}
			m[ks], data = tree(data, raw, depth+1)
		}
		return m, data
	case 2:
		if depth > 4 {
			return raw, data
		}
		var l []any
		for i := 0; i < int(b/9%4) && len(data) > 0; i++ {
			var e any
			e, data = tree(data, raw, depth+1)
			l = append(l, e)
		}
		if l == nil {
			l = []any{}
		}
		return l, data
	case 3:
		return nil, data
	case 4:
		return b%2 == 0, data
	case 5:
		return json.Number([]string{"0", "1", "-3", "1.5", "1e3", "12345678901234567890"}[int(b)%6]), data
	case 6:
		return raw, data
	default:
		return trickyStrings[int(b)%len(trickyStrings)], data
	}
}

// TestPlainWordsAreWrittenPlain: the words the fast decoder reads as themselves are the
// ones the writer writes as they are, as keys and as values.
func TestPlainWordsAreWrittenPlain(t *testing.T) {
	for _, s := range []string{"a", "kube-green", "v1.2.3", "team-a", "x-", "a.", "nfs", "sleepinfo", "nano", "info", "yes1", "y2",
		"apiVersion", "OperatorGroup", "operator.ibm.com/opreq-control", "a_b", "Manual", "x/y/z", "Nope", "Yesterday"} {
		require.True(t, plainWord(s), s)
		out, err := MarshalYAML(map[string]any{s: s})
		require.NoError(t, err)
		assert.Equal(t, s+": "+s+"\n", string(out))
	}
	for _, s := range []string{"yes", "No", "true", "null", "1", "-a", "a b", strings.Repeat("k", 65)} {
		assert.False(t, plainWord(s), s)
	}
}

// FuzzFastDocumentRoundTrip writes random trees as the render writes them and reads them back
// with fastDocument: whatever it takes must be what yaml.v3 and the Converter read.
func FuzzFastDocumentRoundTrip(f *testing.F) {
	f.Add([]byte{0, 7, 8, 2, 7, 0, 16, 9, 2, 25}, "x")
	f.Add([]byte{9, 0, 2, 2, 9, 7, 18, 0, 7, 2, 5}, "a b")
	f.Fuzz(func(t *testing.T, data []byte, raw string) {
		if !utf8.ValidString(raw) {
			return // values come from YAML or JSON: valid UTF-8
		}
		v, _ := tree(data, raw, 0)
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			m = map[string]any{"v": v}
		}
		text, err := MarshalYAML(m)
		require.NoError(t, err)
		got, _, _, ok := fastDocument(text, 1)
		if !ok {
			return
		}
		want, err := decodeSequential("f.yaml", text)
		require.NoError(t, err, "%s", text)
		require.Len(t, want, 1)
		require.Equal(t, want[0].Map, got, "%s", text)
	})
}
