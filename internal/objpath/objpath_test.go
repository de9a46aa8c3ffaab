package objpath_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/objpath"
)

func obj(t *testing.T) map[string]any {
	t.Helper()
	v, err := manifest.DecodeJSONValue([]byte(`{"data":{"s":"x","i":3,"f":1.50,"big":1e21,"b":true,"n":null,
		"m":{"b":1,"a":"<"},"l":[1,"two"]},"spec":{"ports":[{"port":80},{"port":443}]}}`))
	require.NoError(t, err)
	return v.(map[string]any)
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a part without a leading dot is a literal", "data.s", "data.s"},
		{"string", ".data.s", "x"},
		{"integer", ".data.i", "3"},
		{"float printed as Go prints float64", ".data.f", "1.5"},
		{"large float", ".data.big", "1e+21"},
		{"boolean", ".data.b", "true"},
		{"null", ".data.n", "<nil>"},
		{"map as compact JSON, HTML-escaped as Go's encoder writes it", ".data.m", `{"a":"\u003c","b":1}`},
		{"list as compact JSON", ".data.l", `[1,"two"]`},
		{"several matches are space-joined", ".spec.ports[*].port", "80 443"},
		{"missing field is empty", ".data.missing", ""},
		{"concatenation with literals", "https://+.data.s+:8443", "https://x:8443"},
		{"a lone dot is a literal", ".", "."},
		{"a part not found empties the whole path (docs/semantics.md Templating)", ".data.nothere+-suffix", ""},
		{"also after a found part", ".data.s+-+.data.nothere", ""},
		{"a literal that starts with a dot is a JSONPath, and empties the path", "https://+.data.s+.svc", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := objpath.Evaluate(tc.path, obj(t))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	_, err := objpath.Evaluate(".spec.ports[5].port", obj(t))
	require.Error(t, err, "an index out of range is an error, not an empty value")
	_, err = objpath.Evaluate(".spec.ports[", obj(t))
	require.Error(t, err)
}

func TestRemove(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		removed    bool
		want       string
	}{
		{"leading dot optional", "spec.ports", true, `{"data":{"a":1},"spec":{}}`},
		{"with leading dot", ".data.a", true, `{"data":{},"spec":{"ports":[{"port":80},{"port":443}]}}`},
		{"list element field", "spec.ports[1].port", true, `{"data":{"a":1},"spec":{"ports":[{"port":80},{}]}}`},
		{"list element", "spec.ports[0]", true, `{"data":{"a":1},"spec":{"ports":[{"port":443}]}}`},
		{"missing part is a no-op", "spec.nothing.here", false, `{"data":{"a":1},"spec":{"ports":[{"port":80},{"port":443}]}}`},
		{"index out of range is a no-op", "spec.ports[9].port", false, `{"data":{"a":1},"spec":{"ports":[{"port":80},{"port":443}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := manifest.DecodeJSONValue([]byte(`{"data":{"a":1},"spec":{"ports":[{"port":80},{"port":443}]}}`))
			require.NoError(t, err)
			m := v.(map[string]any)
			assert.Equal(t, tc.removed, objpath.Remove(m, tc.path))
			b, err := json.Marshal(m)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}
}

func TestEvaluateErrorsHoldNoValues(t *testing.T) {
	t.Parallel()
	v, err := manifest.DecodeJSONValue([]byte(`{"data":{"pw":"s3cr3t-value"}}`))
	require.NoError(t, err)
	_, err = objpath.Evaluate(`.data.pw[?(@.x=="y")]`, v.(map[string]any))
	require.ErrorContains(t, err, "not a list")
	assert.NotContains(t, err.Error(), "s3cr3t-value")
}

// TestMapWildcardsAreDeterministic: client-go's JSONPath walks a map's values in Go's map
// order, which changes from run to run; the render sorts what ".*" and ".." return, and
// keeps a list's own order everywhere else.
func TestMapWildcardsAreDeterministic(t *testing.T) {
	t.Parallel()
	data := map[string]any{}
	for _, k := range []string{"k", "e", "y", "s", "a", "r", "b", "q", "c", "p"} {
		data[k] = k + "-value"
	}
	o := map[string]any{"data": data, "list": []any{"z", "a", "m"}}
	for _, tc := range []struct{ path, want string }{
		{".data.*", "a-value b-value c-value e-value k-value p-value q-value r-value s-value y-value"},
		{"..k", "k-value"},
		{".list[*]", "z a m"},
		{".list[2]+.list[0]", "mz"},
	} {
		for range 20 {
			got, err := objpath.Evaluate(tc.path, o)
			require.NoError(t, err)
			require.Equal(t, tc.want, got, tc.path)
		}
	}
}
