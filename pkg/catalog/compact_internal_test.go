package catalog

import (
	"bytes"
	"encoding/json"
	"testing"
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
