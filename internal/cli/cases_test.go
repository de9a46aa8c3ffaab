package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/golden"
)

// TestGoldenCasesThroughTheCLI runs every engine golden case through the command line:
// stdout must be the expected objects exactly, and an error case must exit 1 with nothing on
// stdout and every expected error and warning on stderr.
func TestGoldenCasesThroughTheCLI(t *testing.T) {
	for _, c := range golden.Cases(t, "../../testdata/render") {
		t.Run(c.Name(), func(t *testing.T) {
			args := []string{"render", c.Input()}
			for _, p := range c.CatalogPaths("../../testdata/catalogs") {
				args = append(args, "--catalog", p)
			}
			if c.Namespace != "" {
				args = append(args, "--namespace", c.Namespace)
			}
			if c.KeepInputs {
				args = append(args, "--keep-inputs")
			}
			for _, p := range c.SnapshotPaths() {
				args = append(args, "--snapshot", p)
			}
			if c.Pending != "" {
				args = append(args, "--pending", c.Pending)
			}
			if c.Secrets != "" {
				args = append(args, "--secrets", c.Secrets)
			}
			if c.Explain {
				args = append(args, "--explain")
			}
			if c.BindInfoSecrets != "" {
				args = append(args, "--bindinfo-secrets", c.BindInfoSecrets)
			}
			for _, f := range []struct {
				on   bool
				flag string
			}{{c.Pin, "--pin"}, {c.ManualApproval, "--manual-approval"}, {c.CheckPins, "--check-pins"}, {c.FailOnDeprecated, "--fail-on-deprecated"}, {c.EmitCatalogSources, "--emit-catalogsources"}, {c.NoOLM, "--no-olm"}, {c.CRDDefaults, "--crd-defaults"}, {c.OLMv1ServiceAccount, "--olm-v1-service-account"}, {c.OLMv1WatchNamespace, "--olm-v1-watch-namespace"}} {
				if f.on {
					args = append(args, f.flag)
				}
			}
			args = append(args, "--kube-version="+c.KubeVersion, "--ordering="+c.Ordering, "--olm="+c.OLM)
			code, out, stderr := run(t, "", args...)
			stderr = strings.ReplaceAll(stderr, c.Dir+"/", "")
			errs := c.ExpectedResults(t, "error")
			if len(errs) > 0 {
				assert.Equal(t, cli.ExitErrors, code)
				assert.Empty(t, out)
			} else {
				assert.Equal(t, cli.ExitOK, code, stderr)
				assert.Equal(t, c.ExpectedYAML(t), out)
			}
			for _, line := range append(errs, c.ExpectedResults(t, "warning")...) {
				assert.Contains(t, stderr, line)
			}
		})
	}
}
