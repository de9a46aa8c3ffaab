package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestPanicIsOneInternalErrorAndNoOutput swaps the engine for one that panics with a value
// that quotes a secret: render and the Argo CD plugin answer with one internal-error line,
// exit 1, nothing on stdout, and never the panic's value.
func TestPanicIsOneInternalErrorAndNoOutput(t *testing.T) {
	t.Parallel()
	panics := func(render.Inputs, render.Options) render.Output {
		panic("password: s3cr3t-planted")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"render", []string{"render", "../../examples/quickstart/manifests", "--catalog", "../../examples/quickstart/catalog"}},
		{"argocd-generate", []string{"argocd-generate", "../../examples/quickstart/manifests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := mainWith(tc.args, nil, &stdout, &stderr, panics)
			assert.Equal(t, ExitErrors, code)
			assert.Empty(t, stdout.String())
			assert.Contains(t, stderr.String(), "odlm-render: internal error: panic with a string value at ")
			assert.Contains(t, stderr.String(), "please report it")
			assert.NotContains(t, stderr.String(), "s3cr3t")
			assert.Equal(t, 1, bytes.Count(stderr.Bytes(), []byte("\n")), "one line: %s", stderr.String())
		})
	}
}

func TestRuntimePanicNamesTheRuntimeError(t *testing.T) {
	t.Parallel()
	fails := func(render.Inputs, render.Options) render.Output {
		var rules []any
		_ = rules[0].(map[string]any)
		return render.Output{}
	}
	var stdout, stderr bytes.Buffer
	code := mainWith([]string{"render", "../../examples/quickstart/manifests", "--catalog", "../../examples/quickstart/catalog"}, nil, &stdout, &stderr, fails)
	assert.Equal(t, ExitErrors, code)
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "internal error: runtime error: index out of range [0] with length 0 at internal/cli.TestRuntimePanicNamesTheRuntimeError")
}

// TestUsageErrorsSayWhereHelpIs: a usage error ends with a newline and names the help of the
// command it is about; --version works on the root.
func TestUsageErrorsSayWhereHelpIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		help string
	}{
		{[]string{"render"}, "run 'odlm-render render --help' for usage\n"},
		{[]string{"render", "--nope", "x"}, "run 'odlm-render render --help' for usage\n"},
		{[]string{"rendr"}, "run 'odlm-render --help' for usage\n"},
		{[]string{"catalog", "extract", "--frm", "x"}, "run 'odlm-render catalog extract --help' for usage\n"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, ExitUsage, Main(tc.args, nil, &stdout, &stderr), "%v", tc.args)
		assert.True(t, strings.HasSuffix(stderr.String(), tc.help), "%v: %q", tc.args, stderr.String())
		assert.Empty(t, stdout.String())
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, ExitOK, Main([]string{"--version"}, nil, &stdout, &stderr))
	assert.NotEmpty(t, strings.TrimSpace(stdout.String()))
}
