package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/metaop"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const (
	convertData = "../../testdata/convert"
	metaCases   = "../../testdata/render"
	catalogs    = "../../testdata/catalogs"
)

// runCLI runs the command line in-process through Main.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestConvertSeedExampleMatchesGolden(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "", "convert", "-n", "ibm-common-services", convertData+"/seed/input/meta.yaml")
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stderr)
	want := filepath.Join(convertData, "seed", "expected.yaml")
	if *golden.Update {
		require.NoError(t, os.WriteFile(want, []byte(out), 0o644))
	}
	b, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, string(b), out)
	assert.Contains(t, out, "kind: Namespace", "other objects pass through")
	assert.NotContains(t, out, "MetaOperator")
}

func TestConvertIsIndependentOfInputOrderAndSource(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(convertData + "/seed/input/meta.yaml")
	require.NoError(t, err)
	docs := strings.Split(string(b), "\n---\n")
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	_, fromFile, _ := runCLI(t, "", "convert", "--namespace=ibm-common-services", convertData+"/seed/input")
	code, fromStdin, stderr := runCLI(t, strings.Join(docs, "\n---\n"), "convert", "--namespace=ibm-common-services", "-")
	require.Equal(t, ExitOK, code, stderr)
	require.NotEmpty(t, fromFile)
	assert.Equal(t, fromFile, fromStdin)
}

func TestConvertExitCodesAndMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no path is a usage error", []string{"convert"}, ExitUsage, []string{"convert needs at least one PATH"}},
		{"unknown output format", []string{"convert", "-o", "xml", convertData + "/seed/input"}, ExitUsage, []string{"-o must be yaml or json"}},
		{"unknown flag", []string{"convert", "--catalog", "x", convertData + "/seed/input"}, ExitUsage, []string{"unknown flag"}},
		{"missing file", []string{"convert", convertData + "/nope.yaml"}, ExitErrors, []string{"nope.yaml"}},
		{"missing namespace without a default", []string{"convert", convertData + "/seed/input/meta.yaml"}, ExitErrors, []string{
			"testdata/convert/seed/input/meta.yaml:7: MetaOperatorCatalog common-service: metadata.namespace: is required: MetaOperatorCatalog is namespaced (or give a default namespace, --namespace)",
		}},
		{"Kind with a capital K names the fix", []string{"convert", convertData + "/bad/kind-typo.yaml"}, ExitErrors, []string{
			"testdata/convert/bad/kind-typo.yaml:14: MetaOperatorSet cs/common-service: Kind: the field is spelled kind (lower case)",
			"write kind: MetaOperatorSet",
		}},
		{"a Set service the Catalog lacks", []string{"convert", convertData + "/bad/unknown-service.yaml"}, ExitErrors, []string{
			`testdata/convert/bad/unknown-service.yaml:19: MetaOperatorSet cs/common-service: spec.services[0].name: operator "monitoring" is not in MetaOperatorCatalog cs/common-service (operators: metering)`,
		}},
		{"a document that is not an object", []string{"convert", cliData + "/bad/not-an-object.yaml"}, ExitErrors, []string{"not a Kubernetes object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Empty(t, out, "nothing is written on stdout when anything fails")
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
		})
	}
}

const cliData = "../../testdata/cli"

func TestConvertWithoutMetaCRsWarnsAndPassesThrough(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "", "convert", "../../examples/quickstart/manifests")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "warning: no MetaOperatorCatalog, MetaOperatorConfig or MetaOperatorSet among the inputs")
	assert.Contains(t, out, "kind: OperandRegistry")
}

func TestConvertJSONIsAList(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "", "convert", "-o", "json", "-n", "cs", convertData+"/seed/input")
	require.Equal(t, ExitOK, code, stderr)
	assert.True(t, strings.HasPrefix(out, "{"), out)
	assert.Contains(t, out, `"kind": "List"`)
}

// TestRenderOfConvertOutputMatchesRenderOfMetaCRs is the command-line form of the
// equivalence internal/metaop tests: `render` of Meta CRs and `render` of what `convert` prints
// give the same operand CRs, and the same Subscriptions and OperatorGroups up to the
// control label and ODLM's annotations.
func TestRenderOfConvertOutputMatchesRenderOfMetaCRs(t *testing.T) {
	t.Parallel()
	c := golden.LoadCase(t, metaCases+"/meta-channel-override-and-merge")
	dir := c.Input()
	var cat []string
	for _, p := range c.CatalogPaths(t, catalogs) { // the case's real catalogs: reference data
		cat = append(cat, "--catalog", p)
	}
	code, direct, stderr := runCLI(t, "", append([]string{"render", dir}, cat...)...)
	require.Equal(t, ExitOK, code, stderr)
	code, converted, stderr := runCLI(t, "", "convert", dir)
	require.Equal(t, ExitOK, code, stderr)
	code, viaODLM, stderr := runCLI(t, converted, append([]string{"render", "-"}, cat...)...)
	require.Equal(t, ExitOK, code, stderr)

	require.Contains(t, direct, metaop.ControlLabel, "Meta Subscriptions carry the Meta Operator's label")
	require.NotContains(t, viaODLM, metaop.ControlLabel, "ODLM's carry ODLM's")
	assert.Equal(t, normalizeControl(t, direct), normalizeControl(t, viaODLM))
}

// normalizeControl drops the control labels and every annotation of Subscriptions and
// OperatorGroups.
func normalizeControl(t *testing.T, stream string) string {
	t.Helper()
	objs, err := manifest.Decode("-", []byte(stream))
	require.NoError(t, err)
	for _, o := range objs {
		if o.Kind() != "Subscription" && o.Kind() != "OperatorGroup" {
			continue
		}
		md := manifest.EnsureMap(o.Map, "metadata")
		delete(md, "annotations")
		labels := manifest.EnsureMap(md, "labels")
		delete(labels, metaop.ControlLabel)
		delete(labels, naming.ControlLabel)
		if len(labels) == 0 {
			delete(md, "labels")
		}
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, objs))
	return buf.String()
}

// TestConvertIsRegistered checks that cli.go's root command has convert.
func TestConvertIsRegistered(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	root := newRoot(strings.NewReader(""), &out, &errOut, render.Render)
	c, _, err := root.Find([]string{"convert"})
	require.NoError(t, err)
	require.Equal(t, "convert", c.Name())
	code := Main([]string{"convert", "-n", "cs", convertData + "/seed/input"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, ExitOK, code, errOut.String())
	assert.Contains(t, out.String(), "kind: OperandRequest")
}
