package merge_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/merge"
)

func TestEqual(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b any
		want bool
	}{
		{name: "nils", a: nil, b: nil, want: true},
		{name: "nil vs nil map", a: nil, b: map[string]any(nil), want: true},
		{name: "nil vs empty map", a: nil, b: map[string]any{}, want: false},
		{name: "nil vs false", a: nil, b: false, want: false},
		{name: "1 vs 1.0", a: json.Number("1"), b: json.Number("1.0"), want: true},
		{name: "1 vs 1e0", a: json.Number("1"), b: json.Number("1e0"), want: true},
		{name: "0 vs -0", a: json.Number("0"), b: json.Number("-0"), want: true},
		{name: "1 vs 2", a: json.Number("1"), b: json.Number("2"), want: false},
		{name: "float64 rounding", a: json.Number("9007199254740993"), b: json.Number("9007199254740992"), want: true},
		{name: "beyond float64", a: json.Number("1e400"), b: json.Number("10e399"), want: true},
		{name: "beyond float64 differ", a: json.Number("1e400"), b: json.Number("2e400"), want: false},
		{name: "beyond float64 fraction", a: json.Number("-0.00120e402"), b: json.Number("-12.0e398"), want: true},
		{name: "beyond float64 zero", a: json.Number("0.000e99999999999"), b: json.Number("-0"), want: true},
		{name: "huge exponent", a: json.Number("1e99999999"), b: json.Number("1.0e99999999"), want: true},
		{name: "huge exponent differs", a: json.Number("1e99999999"), b: json.Number("1e99999998"), want: false},
		{name: "exponent overflowing int64", a: json.Number("1e99999999999999999999"), b: json.Number("1.0e99999999999999999999"), want: false},
		{name: "in range vs out of range", a: json.Number("1e308"), b: json.Number("1e309"), want: false},
		{name: "number vs float64", a: json.Number("1.5"), b: 1.5, want: true},
		{name: "number vs int", a: json.Number("3.0"), b: 3, want: true},
		{name: "number vs string", a: json.Number("1"), b: "1", want: false},
		{name: "invalid number text", a: json.Number("abc"), b: json.Number("abc"), want: true},
		{name: "strings", a: "x", b: "x", want: true},
		{name: "bools", a: true, b: false, want: false},
		{name: "maps", a: map[string]any{"a": json.Number("1")}, b: map[string]any{"a": json.Number("1.00")}, want: true},
		{name: "null key vs missing key", a: map[string]any{"a": nil}, b: map[string]any{"b": nil}, want: false},
		{name: "map sizes", a: map[string]any{"a": nil}, b: map[string]any{}, want: false},
		{name: "lists", a: []any{"a", json.Number("2")}, b: []any{"a", json.Number("2.0")}, want: true},
		{name: "list order", a: []any{"a", "b"}, b: []any{"b", "a"}, want: false},
		{name: "list vs map", a: []any{}, b: map[string]any{}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, merge.Equal(tc.a, tc.b))
			assert.Equal(t, tc.want, merge.Equal(tc.b, tc.a))
		})
	}
}

func TestDeepCopy(t *testing.T) {
	t.Parallel()
	orig := decode(t, `{"a":[{"b":1},"s",null,true],"c":{"d":{"e":[]}}}`)
	cp := merge.DeepCopy(orig)
	assert.Equal(t, orig, cp)

	cp.(map[string]any)["a"].([]any)[0].(map[string]any)["b"] = "x"
	cp.(map[string]any)["c"].(map[string]any)["d"] = nil
	assert.Equal(t, decode(t, `{"a":[{"b":1},"s",null,true],"c":{"d":{"e":[]}}}`), orig)

	assert.Nil(t, merge.DeepCopy(nil))
	assert.Equal(t, "s", merge.DeepCopy("s"))
}
