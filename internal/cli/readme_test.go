package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// flagValueNames names the value of each render flag that is neither a boolean nor one of
// the engine's enumerated options, for the table in docs/render.md.
var flagValueNames = map[string]string{
	"catalog":                  "PATH",
	"snapshot":                 "PATH",
	"output":                   "yaml|json",
	"namespace":                "NS",
	"kubeconfig":               "FILE",
	"context":                  "NAME",
	"live-timeout":             "DURATION",
	"live-deadline":            "DURATION",
	"kube-version":             "X.Y.Z",
	"global-catalog-namespace": "NAMESPACE",
	"image-mirror":             "FROM=TO",
}

// TestREADMEFlagTable keeps the table of render flags in docs/render.md (linked from the
// README) what the command declares (go test ./internal/cli -run TestREADMEFlagTable -update
// rewrites it).
func TestREADMEFlagTable(t *testing.T) {
	t.Parallel()
	enums := map[string][]string{}
	for _, o := range optionspec.Of[render.Options]() {
		enums[o.Flag] = o.Enum
	}
	cmd := newRenderCmd(strings.NewReader(""), io.Discard, io.Discard, nil)
	var b strings.Builder
	b.WriteString("| flag | meaning |\n|---|---|\n")
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		switch {
		case f.Value.Type() == "bool":
		case len(enums[f.Name]) > 0:
			name += " " + strings.Join(enums[f.Name], "|")
		default:
			v, ok := flagValueNames[f.Name]
			require.True(t, ok, "flag --%s: add the name of its value to flagValueNames", f.Name)
			name += " " + v
		}
		meaning := f.Usage
		if d := f.DefValue; d != "" && d != "false" && d != "[]" {
			meaning += fmt.Sprintf(" (default `%s`)", d)
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", cell(name), cell(meaning))
	})
	golden.Section(t, "../../docs/render.md", "render flags", b.String())
}

// cell escapes a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
