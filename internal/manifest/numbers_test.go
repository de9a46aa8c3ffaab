package manifest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestNumbersJSONCannotHoldAreErrors: a number that overflows a float64 is refused wherever
// it is written (plain YAML, a JSON document, an exponent or 400 digits), as .inf is: the
// output must not carry a value that the API server's decoder refuses or reads otherwise.
func TestNumbersJSONCannotHoldAreErrors(t *testing.T) {
	t.Parallel()
	big := "1" + strings.Repeat("0", 400)
	for _, tc := range []struct{ name, doc string }{
		{"exponent in YAML", "x: 1e999"},
		{"negative exponent in YAML", "x: -1.5E+999"},
		{"infinity", "x: .inf"},
		{"exponent in JSON", `{"x": 1e999}`},
		{"400 digits", "x: " + big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Decode("a.yaml", []byte(tc.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot be represented in JSON")
		})
	}
	for _, doc := range []string{"x: 1e300", "x: '1e999'", `x: "1e999"`, "x: 12345678901234567890", "x: 1.", "x: 0.5e-999"} {
		_, err := manifest.Decode("a.yaml", []byte(doc))
		assert.NoError(t, err, doc)
	}
}
