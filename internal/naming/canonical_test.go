package naming

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// floatsCopy is the reference canonicalJSON is checked against: a copy of v with every
// json.Number turned into its float64, ready for json.Marshal.
func floatsCopy(v any) (any, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		return f, err == nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, ok := floatsCopy(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, ok := floatsCopy(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	default:
		return v, true
	}
}

// FuzzCanonicalJSON checks canonicalJSON against json.Marshal of the float64 copy, for any
// JSON document decoded with numbers kept as text, any string and any float.
func FuzzCanonicalJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, `{"c":[1e21,1.50,null,true],"b":"<&>","a":12345678901234567890}`,
		`{"s":"<a href='x'>&amp;</a> é \u2028 \u2029 \u0000 \u001f \u007f \b\f\n\r\t"}`,
		`[1e-7,1e-6,-0,0.000001,123456789e300,5e-324]`, `"\xff"`, `{"z":{"b":2,"a":[{}]},"é":null,"":1}`,
	} {
		f.Add([]byte(seed), seed, 1.5)
	}
	f.Fuzz(func(t *testing.T, doc []byte, s string, x float64) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "string %q", s)
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			want, err := json.Marshal(x)
			require.NoError(t, err)
			require.Equal(t, string(want), string(appendJSONFloat(nil, x)), "float %v", x)
		}

		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		got, gotErr := canonicalJSON(nil, v)
		floats, ok := floatsCopy(v)
		if !ok {
			require.Error(t, gotErr, "a number out of float64 range")
			return
		}
		want, err = json.Marshal(floats)
		require.NoError(t, err)
		require.NoError(t, gotErr)
		require.Equal(t, string(want), string(got))
	})
}

// BenchmarkDataHash hashes an OperandConfig resource's data of the size the nested fleet's
// resources have (an OperandRequest spec asking for four operands).
func BenchmarkDataHash(b *testing.B) {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"spec":{"requests":[{"registry":"fleet","registryNamespace":"platform","operands":[
		{"name":"kube-green"},{"name":"nfs"},{"name":"network"},
		{"name":"kube-green","apiVersion":"kube-green.com/v1alpha1","kind":"SleepInfo","spec":{"weekdays":"1-5","sleepAt":"21:00","replicas":3}}]}]}}`)))
	dec.UseNumber()
	require.NoError(b, dec.Decode(&v))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DataHash(v); err != nil {
			b.Fatal(err)
		}
	}
}
