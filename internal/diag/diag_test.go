package diag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

func TestResultString(t *testing.T) {
	objs, err := manifest.Decode("in/req.yaml", []byte("apiVersion: operator.ibm.com/v1alpha1\nkind: OperandRequest\nmetadata:\n  name: app\n  namespace: ns\nspec:\n  requests:\n  - registry: r\n"))
	require.NoError(t, err)
	obj := objs[0]
	for _, tc := range []struct {
		name string
		r    diag.Result
		want string
	}{
		{"error with file, line, object and field", diag.Errorf(obj, "spec.requests[0].registry", "not found"), "in/req.yaml:8: OperandRequest ns/app: spec.requests[0].registry: not found"},
		{"warning says its severity", diag.Warnf(obj, "metadata.name", "hm"), "in/req.yaml:4: warning: OperandRequest ns/app: metadata.name: hm"},
		{"generated object has no file", diag.Infof(manifest.New(map[string]any{"kind": "Namespace", "metadata": map[string]any{"name": "x"}}), "", "made"), "info: Namespace x: made"},
		{"no object at all", diag.Result{Severity: diag.Error, Message: "boom"}, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.r.String()) })
	}
}

func TestSortOrdersBySeverityAndDropsDuplicates(t *testing.T) {
	rs := diag.Results{
		{Severity: diag.Info, Message: "i"},
		{Severity: diag.Warning, Message: "w", File: "b.yaml", Line: 2},
		{Severity: diag.Error, Message: "e", File: "b.yaml", Line: 9},
		{Severity: diag.Warning, Message: "w", File: "b.yaml", Line: 2},
		{Severity: diag.Warning, Message: "w", File: "a.yaml", Line: 5},
	}
	got := rs.Sort()
	var lines []string
	for _, r := range got {
		lines = append(lines, r.String())
	}
	assert.Equal(t, []string{"b.yaml:9: e", "a.yaml:5: warning: w", "b.yaml:2: warning: w", "info: i"}, lines)
	assert.True(t, got.HasErrors())
	assert.Len(t, got.Errors(), 1)
	assert.False(t, diag.Results{{Severity: diag.Warning}}.HasErrors())
}

// TestResultStringEscapesControls: a message quoting a catalog or a cluster object cannot
// erase or rewrite a terminal's line, nor add a line: its controls print escaped.
func TestResultStringEscapesControls(t *testing.T) {
	t.Parallel()
	r := diag.Warnf(nil, "", "deprecated: %s", "ok\r\x1b[2Kerror: forged\nsecond line\a")
	assert.Equal(t, `warning: deprecated: ok\r\x1b[2Kerror: forged\nsecond line\x07`, r.String())
}
