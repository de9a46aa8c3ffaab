package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/golden"
)

const planData = testdataRoot + "/plan"

// planCase is testdata/plan/<case>/case.yaml: what `odlm-render plan` is given besides the
// case's own input/ and snapshot/ folders. Paths are relative to testdata/, or
// "reference:PATH" for a file of the reference folder (internal/refdata); loadPlanCase
// resolves them.
type planCase struct {
	// Catalogs are --catalog PATHs
	Catalogs []string `json:"catalogs,omitempty"`
	// Args are the other flags, as written on a command line (-o is the test's)
	Args []string `json:"args,omitempty"`
	// Exit is the exit status expected (0 unless told)
	Exit int `json:"exit,omitempty"`
}

// loadPlanCase reads dir/case.yaml strictly, its catalogs resolved: under testdata/, or in
// the reference folder (t skips without it).
func loadPlanCase(t *testing.T, dir string) planCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "case.yaml"))
	require.NoError(t, err)
	var c planCase
	require.NoError(t, yaml.UnmarshalStrict(b, &c), "%s/case.yaml", dir)
	c.Catalogs = catalogPaths(t, c.Catalogs)
	return c
}

// args is the command line of the case in dir, writing format.
func (c planCase) args(dir, format string) []string {
	args := []string{"plan", filepath.Join(dir, "input"), "--snapshot", filepath.Join(dir, "snapshot")}
	for _, p := range c.Catalogs {
		args = append(args, "--catalog", p)
	}
	return append(append(args, c.Args...), "-o", format)
}

// planFormats are the formats and the expected/ file each one's stdout is compared with.
var planFormats = map[string]string{"text": "stdout.txt", "json": "stdout.json", "markdown": "stdout.md"}

// TestPlanGoldenCases runs every testdata/plan/<case> in each format: the exit status of
// case.yaml, and expected/ holds stdout per format and stderr.txt (the same in each format,
// written when not empty). `go test ./internal/cli -run TestPlanGoldenCases -update`
// rewrites expected/ (read the diff).
func TestPlanGoldenCases(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(planData)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(entries), 5)
	for _, e := range entries {
		dir := filepath.Join(planData, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			c := loadPlanCase(t, dir)
			files := map[string]string{}
			for format, name := range planFormats {
				code, stdout, stderr := run(t, "", c.args(dir, format)...)
				require.Equal(t, c.Exit, code, stderr)
				files[name] = stdout
				if stderr != "" {
					files["stderr.txt"] = relativeStderr(stderr)
				}
			}
			assert.True(t, json.Valid([]byte(files["stdout.json"])))
			golden.Compare(t, filepath.Join(dir, "expected"), files)
		})
	}
}

// TestPlanJSONShape: every operator, and the objects section, has every key of the
// documented shape, lists as [].
func TestPlanJSONShape(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(planData, "koku-several-versions-behind")
	c := loadPlanCase(t, dir)
	code, stdout, stderr := run(t, "", c.args(dir, "json")...)
	require.Equal(t, cli.ExitOK, code, stderr)
	var got struct {
		Operators []map[string]json.RawMessage `json:"operators"`
		Objects   map[string]json.RawMessage   `json:"objects"`
		Notes     json.RawMessage              `json:"notes"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.NotEmpty(t, got.Operators)
	for _, key := range []string{"name", "namespace", "package", "channel", "fromChannel", "action", "from", "to", "path", "pathError",
		"deprecations", "crdChanges", "storedObjects", "rbac", "objects", "notes"} {
		assert.Contains(t, got.Operators[0], key)
	}
	assert.JSONEq(t, "[]", string(got.Operators[0]["objects"]))
	assert.JSONEq(t, "[]", string(got.Notes))
	for _, key := range []string{"added", "changed", "unchanged", "removed"} {
		assert.Contains(t, got.Objects, key)
	}
	var hops []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(got.Operators[0]["path"], &hops))
	require.NotEmpty(t, hops)

	// every key the JSON has is in the shape plan --help documents
	_, help, _ := run(t, "", "plan", "--help")
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(stdout), &top))
	for _, keys := range []map[string]json.RawMessage{top, got.Operators[0], got.Objects, hops[0]} {
		for key := range keys {
			assert.Regexp(t, `[{\s,\[]`+key+`[,}\s\]]`, help, "plan --help documents the key %q", key)
		}
	}
}

// TestPlanObjectsHideSecrets: the objects-diff case's Secret values, old and new, as written
// and base64 encoded, appear in no format, though the Secret's change is reported; so do the
// old and new values of a ConfigMap field the render filled from a Secret (hidden by the
// render's marks: the old value is in no Secret).
func TestPlanObjectsHideSecrets(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(planData, "objects-diff")
	c := loadPlanCase(t, dir)
	values := []string{"plan-new-password-value", "plan-old-password-value", "green-db-user-rotated", "green-db-user-before"}
	for _, v := range values[:4] {
		values = append(values, base64.StdEncoding.EncodeToString([]byte(v)))
	}
	for format := range planFormats {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, "", c.args(dir, format)...)
			require.Equal(t, cli.ExitOK, code, stderr)
			assert.Contains(t, stdout, "green-credentials")
			assert.Contains(t, stdout, "data.password")
			assert.Contains(t, stdout, "data.user")
			assert.Contains(t, stdout, "(value hidden)")
			for _, v := range values {
				assert.NotContains(t, stdout, v)
				assert.NotContains(t, stderr, v)
			}
		})
	}
}

// TestPlanUsage: wrong usage exits 2 and writes nothing on stdout.
func TestPlanUsage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(planData, "koku-several-versions-behind")
	input, snapshot := filepath.Join(dir, "input"), filepath.Join(dir, "snapshot")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no path", []string{"--snapshot", snapshot}, "plan needs at least one PATH"},
		{"no cluster", []string{input}, "plan needs --snapshot CLUSTER-EXPORT or --live"},
		{"unknown format", []string{input, "--snapshot", snapshot, "-o", "yaml"}, `-o "yaml": text, json or markdown`},
		{"unknown fail-on", []string{input, "--snapshot", snapshot, "--fail-on", "warning"}, `--fail-on "warning": unsafe or blocked`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, "", append([]string{"plan"}, tc.args...)...)
			assert.Equal(t, cli.ExitUsage, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
		})
	}
}
