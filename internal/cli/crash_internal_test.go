package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestPanicIsOneInternalErrorAndNoOutput swaps the engine for one that panics with a value
// that quotes a secret: render and the Argo CD plugin answer with one internal-error line,
// exit 1, nothing on stdout, and never the panic's value.
func TestPanicIsOneInternalErrorAndNoOutput(t *testing.T) {
	saved := renderEngine
	t.Cleanup(func() { renderEngine = saved })
	renderEngine = func(render.Inputs, render.Options) render.Output {
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
			var stdout, stderr bytes.Buffer
			code := Main(tc.args, nil, &stdout, &stderr)
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
	saved := renderEngine
	t.Cleanup(func() { renderEngine = saved })
	renderEngine = func(render.Inputs, render.Options) render.Output {
		var rules []any
		_ = rules[0].(map[string]any)
		return render.Output{}
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"render", "../../examples/quickstart/manifests", "--catalog", "../../examples/quickstart/catalog"}, nil, &stdout, &stderr)
	assert.Equal(t, ExitErrors, code)
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "internal error: runtime error: index out of range [0] with length 0 at internal/cli.TestRuntimePanicNamesTheRuntimeError")
}
