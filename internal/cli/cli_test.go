package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/golden"
)

const (
	quickstart = "../../examples/quickstart"
	cliData    = "../../testdata/cli"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRenderQuickstartMatchesGolden(t *testing.T) {
	t.Parallel()
	code, out, stderr := run(t, "", "render", quickstart+"/manifests", "--catalog", quickstart+"/catalog")
	require.Equal(t, cli.ExitOK, code, stderr)
	want := filepath.Join(cliData, "quickstart.yaml")
	if *golden.Update {
		require.NoError(t, os.WriteFile(want, []byte(out), 0o644))
	}
	b, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, string(b), out)
}

func TestRenderIsIndependentOfArgumentOrder(t *testing.T) {
	t.Parallel()
	_, a, _ := run(t, "", "render", quickstart+"/manifests/registry.yaml", quickstart+"/manifests/requests.yaml", "--catalog", quickstart+"/catalog")
	_, b, _ := run(t, "", "render", quickstart+"/manifests/requests.yaml", quickstart+"/manifests/registry.yaml", "--catalog", quickstart+"/catalog/nfs-provisioner-operator", "--catalog", quickstart+"/catalog/kube-green")
	require.NotEmpty(t, a)
	assert.Equal(t, a, b)
}

func TestRenderFromStdin(t *testing.T) {
	t.Parallel()
	reg, err := os.ReadFile(quickstart + "/manifests/registry.yaml")
	require.NoError(t, err)
	req, err := os.ReadFile(quickstart + "/manifests/requests.yaml")
	require.NoError(t, err)
	code, fromStdin, stderr := run(t, string(reg)+"\n---\n"+string(req), "render", "-", "--catalog", quickstart+"/catalog")
	require.Equal(t, cli.ExitOK, code, stderr)
	_, fromFiles, _ := run(t, "", "render", quickstart+"/manifests", "--catalog", quickstart+"/catalog")
	assert.Equal(t, fromFiles, fromStdin)
}

func TestRenderJSONIsAListOfTheSameObjects(t *testing.T) {
	t.Parallel()
	code, out, stderr := run(t, "", "render", "-o", "json", quickstart+"/manifests", "--catalog", quickstart+"/catalog")
	require.Equal(t, cli.ExitOK, code, stderr)
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Equal(t, "List", list.Kind)
	_, yamlOut, _ := run(t, "", "render", quickstart+"/manifests", "--catalog", quickstart+"/catalog")
	assert.Len(t, list.Items, strings.Count(yamlOut, "\n---\n")+1)
}

func TestExitCodesAndMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no path is a usage error", []string{"render"}, cli.ExitUsage, []string{"at least one PATH"}},
		{"unknown output format", []string{"render", "-o", "xml", quickstart + "/manifests"}, cli.ExitUsage, []string{"-o must be yaml or json"}},
		{"unknown flag", []string{"render", "--nope", quickstart + "/manifests"}, cli.ExitUsage, []string{"unknown flag"}},
		{"missing file", []string{"render", cliData + "/does-not-exist.yaml"}, cli.ExitErrors, []string{"does-not-exist.yaml"}},
		// the YAML parser reports the line where the construct holding the error starts
		{"YAML syntax error names file and line", []string{"render", cliData + "/bad/syntax.yaml"}, cli.ExitErrors, []string{"testdata/cli/bad/syntax.yaml:3: invalid YAML/JSON"}},
		{"a document that is not an object", []string{"render", cliData + "/bad/not-an-object.yaml"}, cli.ExitErrors, []string{"testdata/cli/bad/not-an-object.yaml:1: not a Kubernetes object"}},
		{"an error result names file, line, object and field", []string{"render", cliData + "/bad/unknown-registry.yaml"}, cli.ExitErrors, []string{
			"testdata/cli/bad/unknown-registry.yaml:8: OperandRequest apps/app: spec.requests[0].registry: OperandRegistry apps/nowhere not found",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, "", tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Empty(t, out, "nothing is written on stdout when anything fails")
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
		})
	}
}

func TestWarningsGoToStderrAndInfoOnlyWhenVerbose(t *testing.T) {
	t.Parallel()
	code, out, stderr := run(t, "", "render", cliData+"/warnings.yaml")
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "warning: OperandRegistry apps/reg: spec.operators[0].supportStatus: unknown field")
	assert.NotContains(t, stderr, "info:")
	assert.Contains(t, out, "kind: Subscription")
	_, _, verbose := run(t, "", "render", "-v", cliData+"/warnings.yaml")
	assert.Contains(t, verbose, "info:")
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, "", "version")
	assert.Equal(t, cli.ExitOK, code)
	assert.NotEmpty(t, strings.TrimSpace(out))
}

func TestHealthChecksCommand(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, "", "health-checks")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "resource.customizations.health.operators.coreos.com_Subscription: |")
	assert.Contains(t, out, "resource.customizations.health.operator.ibm.com_OperandRequest: |")
	code, out, _ = run(t, "", "health-checks", "--configmap")
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "kind: ConfigMap")
	assert.Contains(t, out, "name: argocd-cm")
}
