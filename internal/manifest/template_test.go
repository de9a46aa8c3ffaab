package manifest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestTemplatesAreNamed: a file that is a Helm or Go template is an error saying so, at the
// first template action, with the parser's own message kept; template text that YAML can
// hold (quoted, commented) is left alone.
func TestTemplatesAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"unquoted value (yaml.v3: mapping keys must be strings)", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  n: {{ .Values.n }}\n",
			"t.yaml:5: this is a Helm or Go template, not YAML: {{ .Values.n }} is a template action; render the template first (helm template, or the tool that owns it) and give its output (the YAML parser says: line 5: mapping keys must be strings)"},
		{"a whole line of control", "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n",
			"t.yaml:1: this is a Helm or Go template, not YAML: {{- if .Values.enabled }} is a template action"},
		{"in a name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n",
			"t.yaml:4: this is a Helm or Go template, not YAML: {{ .Release.Name }} is a template action"},
		{"a long action is cut", "a: {{ " + "include \"a-very-long-helper-name.that-goes-on\" (dict \"context\" $ \"name\" .Values.name) }}\n",
			`t.yaml:1: this is a Helm or Go template, not YAML: {{ include "a-very-long-helper-name.that-goes-on" (dict "…}} is a template action`},
		{"quoted actions are YAML: the parser's error stays", "a: \"{{ .Values.x }}\"\nb: [\n",
			"t.yaml:2: invalid YAML/JSON"},
		{"commented actions too", "# {{ .Values.x }}\nb: [\n", "t.yaml:2: invalid YAML/JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Decode("t.yaml", []byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			if !strings.Contains(tc.want, "template") {
				assert.NotContains(t, err.Error(), "template")
			}
		})
	}
	objs, err := manifest.Decode("ok.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  t: \"{{ .Values.x }}\"\n  u: |\n    {{ .Values.y }}\n"))
	require.NoError(t, err, "a valid manifest holding template text in its strings")
	assert.Len(t, objs, 1)
}
