package fbc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzCompactJSON: valid JSON compacts as json.Compact does; invalid JSON
// is left as it is.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{
		"[\n  {\n    \"kind\": \"K\",\n    \"spec\": {\"n\": 1.50, \"s\": \"a \\\" b\\\\\", \"l\": [1, 2, true, null]}\n  }\n]",
		`[{"kind": "Widget",}]`, `[1 2]`, `{"a": tr ue}`, `[{"a":1}] []`, "\"\t\"", `{"a":"\u0041"}`, `  `, ``, `"unterminated`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := compactJSON(s)
		if json.Valid([]byte(s)) {
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(s)); err != nil {
				t.Fatal(err)
			}
			if got != want.String() {
				t.Fatalf("compactJSON(%q) = %q, want %q", s, got, want.String())
			}
			return
		}
		if got != s {
			t.Fatalf("invalid %q was changed to %q", s, got)
		}
	})
}

func TestPeekObjectHead(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want objectHead
		ok   bool
	}{
		{`{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"name":"x"},"name":"svc"},"spec":{"name":"y"}}`, head("v1", "Service", "svc"), true},
		{` { "kind" : "CustomResourceDefinition" , "metadata" : { "name" : "a.b" } , "apiVersion" : "apiextensions.k8s.io/v1" } `, head("apiextensions.k8s.io/v1", "CustomResourceDefinition", "a.b"), true},
		{`{"kind":"X","metadata":{"name":1}}`, objectHead{}, false},
		{`{"kind":"X"`, objectHead{}, false},
		{`[1]`, objectHead{}, false},
	} {
		got, ok := peekObjectHead([]byte(tc.in))
		assert.Equal(t, tc.ok, ok, tc.in)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.in)
			var full objectHead
			require.NoError(t, json.Unmarshal([]byte(tc.in), &full))
			assert.Equal(t, full, got, "the peek agrees with encoding/json")
		}
	}
}

func head(apiVersion, kind, name string) objectHead {
	h := objectHead{APIVersion: apiVersion, Kind: kind}
	h.Metadata.Name = name
	return h
}
