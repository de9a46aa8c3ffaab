package output_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/output"
)

func objects(t *testing.T) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	require.NoError(t, err)
	return objs
}

// TestStreamWritesResultsThenObjectsOrNothing: results go to stderr (info only when
// verbose); objects reach stdout only when no result is an error.
func TestStreamWritesResultsThenObjectsOrNothing(t *testing.T) {
	t.Parallel()
	warn := diag.Result{Severity: diag.Warning, Message: "careful"}
	info := diag.Result{Severity: diag.Info, Message: "fyi"}
	fail := diag.Result{Severity: diag.Error, Message: "broken"}
	for _, tc := range []struct {
		name           string
		format         output.Format
		verbose        bool
		results        diag.Results
		stdout, stderr string
		reported       bool
	}{
		{"yaml", output.YAML, false, diag.Results{warn, info}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "warning: careful\n", false},
		{"verbose", output.YAML, true, diag.Results{warn, info}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", "warning: careful\ninfo: fyi\n", false},
		{"json", output.JSON, false, nil, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"ConfigMap\",\n      \"metadata\": {\n        \"name\": \"a\"\n      }\n    }\n  ],\n  \"kind\": \"List\"\n}\n", "", false},
		{"an error: nothing on stdout", output.YAML, false, diag.Results{warn, fail}, "", "warning: careful\nbroken\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := output.Stream{Stdout: &stdout, Stderr: &stderr, Format: tc.format, Verbose: tc.verbose}.Write(objects(t), tc.results)
			if tc.reported {
				require.ErrorIs(t, err, output.ErrReported)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.stdout, stdout.String())
			assert.Equal(t, tc.stderr, stderr.String())
		})
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	f, err := output.ParseFormat("json")
	require.NoError(t, err)
	assert.Equal(t, output.JSON, f)
	_, err = output.ParseFormat("xml")
	require.EqualError(t, err, `-o must be yaml or json, not "xml"`)
}

func TestWrittenIsNothingWithAnError(t *testing.T) {
	t.Parallel()
	objs := objects(t)
	assert.Equal(t, objs, output.Written(objs, diag.Results{{Severity: diag.Warning, Message: "w"}}))
	assert.Nil(t, output.Written(objs, diag.Results{{Severity: diag.Error, Message: "e"}}))
}
