package cli_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestGoldenCasesThroughTheCLI runs every engine golden case through the command line:
// stdout must be the expected objects exactly, and an error case must exit 1 with nothing on
// stdout and every expected error and warning on stderr.
func TestGoldenCasesThroughTheCLI(t *testing.T) {
	t.Parallel()
	for _, c := range golden.Cases(t, "../../testdata/render") {
		t.Run(c.Name(), func(t *testing.T) {
			args := append([]string{"render"}, c.InputPaths(t)...)
			for _, p := range c.CatalogPaths(t, "../../testdata/catalogs") {
				args = append(args, "--catalog", p)
			}
			for _, p := range c.SnapshotPaths(t) {
				args = append(args, "--snapshot", p)
			}
			args = append(args, optionFlags(c.Options)...)
			code, out, stderr := run(t, "", args...)
			stderr = golden.Relative(stderr, c.Dir)
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

// optionFlags are the flags that set opts: every string option (so that "" overrides a
// default from the environment, KUBE_VERSION) and every boolean option that is true.
func optionFlags(opts render.Options) []string {
	v := reflect.ValueOf(opts)
	var args []string
	for _, o := range optionspec.Of[render.Options]() {
		switch f := v.FieldByName(o.Field); f.Kind() {
		case reflect.Bool:
			if f.Bool() {
				args = append(args, "--"+o.Flag)
			}
		case reflect.String:
			args = append(args, "--"+o.Flag+"="+f.String())
		case reflect.Slice:
			for i := 0; i < f.Len(); i++ {
				args = append(args, "--"+o.Flag+"="+f.Index(i).String())
			}
		}
	}
	return args
}
