package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const (
	quickstart = "../examples/quickstart"
	fnData     = "../testdata/fn"
	kptfile    = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: quickstart
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: odlm-render-fn
`
)

// resourceList builds a ResourceList the way kpt does: the package's files as items (with
// path annotations), plus extra items and a functionConfig.
func resourceList(t *testing.T, dir string, fnConfig string, extra ...string) []byte {
	t.Helper()
	return resourceListOf(t, []string{dir}, fnConfig, extra...)
}

// resourceListOf is resourceList of the YAML files of several folders or files, in order.
func resourceListOf(t *testing.T, paths []string, fnConfig string, extra ...string) []byte {
	t.Helper()
	var nodes []*yaml.RNode
	for _, p := range paths {
		read, err := kio.LocalPackageReader{PackagePath: p, MatchFilesGlob: []string{"*.yaml"}}.Read()
		require.NoError(t, err)
		nodes = append(nodes, read...)
	}
	for _, e := range extra {
		n, err := yaml.Parse(e)
		require.NoError(t, err)
		nodes = append(nodes, n)
	}
	var buf bytes.Buffer
	w := kio.ByteWriter{Writer: &buf, KeepReaderAnnotations: true, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion}
	if fnConfig != "" {
		fc, err := yaml.Parse(fnConfig)
		require.NoError(t, err)
		w.FunctionConfig = fc
	}
	require.NoError(t, w.Write(nodes))
	return buf.Bytes()
}

func execute(t *testing.T, in []byte) (string, error) {
	t.Helper()
	var out, stderr bytes.Buffer
	if code := run(nil, bytes.NewReader(in), &out, &stderr, render.Render); code != 0 {
		return out.String(), fmt.Errorf("exit status %d: %s", code, stderr.String())
	}
	return out.String(), nil
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(fnData, name)
	if *golden.Update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

const renderConfig = `apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
spec:
  catalogs: [../examples/quickstart/catalog]
`

func TestGeneratorWithRenderConfig(t *testing.T) {
	t.Parallel()
	out, err := execute(t, resourceList(t, quickstart+"/manifests", renderConfig, kptfile))
	require.NoError(t, err)
	compareGolden(t, "quickstart-resourcelist.yaml", out)
	assert.Contains(t, out, "internal.config.kubernetes.io/path: odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml\n")
	assert.Contains(t, out, "kind: Kptfile", "the Kptfile is passed through")
	assert.NotContains(t, out, "kind: OperandRequest", "consumed ODLM inputs are removed")
}

func TestConfigMapFunctionConfigAndCatalogBlobsAmongItems(t *testing.T) {
	t.Parallel()
	viaRenderConfig, err := execute(t, resourceList(t, quickstart+"/manifests", renderConfig))
	require.NoError(t, err)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn}\ndata:\n  catalogs: ../examples/quickstart/catalog/kube-green, ../examples/quickstart/catalog/nfs-provisioner-operator\n"
	viaConfigMap, err := execute(t, resourceList(t, quickstart+"/manifests", cm))
	require.NoError(t, err)
	assert.Equal(t, items(t, viaRenderConfig), items(t, viaConfigMap))

	var blobs []string
	for _, pkg := range []string{"kube-green", "nfs-provisioner-operator"} {
		b, err := os.ReadFile(filepath.Join(quickstart, "catalog", pkg, "catalog.yaml"))
		require.NoError(t, err)
		for _, doc := range strings.Split(string(b), "\n---\n") {
			if strings.TrimSpace(doc) != "" {
				blobs = append(blobs, doc)
			}
		}
	}
	viaBlobs, err := execute(t, resourceList(t, quickstart+"/manifests", "", blobs...))
	require.NoError(t, err)
	assert.Equal(t, items(t, viaRenderConfig), items(t, viaBlobs), "catalog blobs among the items work like a catalog path, and are removed")
}

// items returns the items of a ResourceList output, without the functionConfig.
func items(t *testing.T, rl string) string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(rl), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &buf}.Write(nodes))
	return buf.String()
}

func TestSecondRunChangesNothing(t *testing.T) {
	t.Parallel()
	first, err := execute(t, resourceList(t, quickstart+"/manifests", renderConfig, kptfile))
	require.NoError(t, err)
	second, err := execute(t, []byte(first))
	require.NoError(t, err)
	assert.Equal(t, items(t, first), items(t, second))
}

func TestErrorsExitNonZeroWithResultsAndUnchangedItems(t *testing.T) {
	t.Parallel()
	in := resourceList(t, fnData+"/bad-request", "", kptfile)
	out, err := execute(t, in)
	require.Error(t, err, "kustomize only sees the exit code: an error result must fail the run")
	assert.Contains(t, out, "severity: error")
	assert.Contains(t, out, "message: OperandRegistry apps/nowhere not found")
	assert.Contains(t, out, "path: spec.requests[0].registry")
	assert.Contains(t, out, "path: unknown-registry.yaml")
	assert.Contains(t, out, "kind: OperandRequest", "no partial output: items are returned as they came")
}

func TestBadFunctionConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, fc, want string }{
		{"wrong kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n", "functionConfig must be"},
		{"unknown RenderConfig field", "apiVersion: odlm-render.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec: {catalog: x}\n", "unknown field spec.catalog"},
		{"unknown ConfigMap key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {katalog: x}\n", "unknown key data.katalog"},
		{"bad boolean", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {keep-inputs: maybe}\n", "is not a boolean"},
		{"missing catalog path", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {catalogs: /nonexistent}\n", "nonexistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := execute(t, resourceList(t, quickstart+"/manifests", tc.fc))
			require.Error(t, err)
			assert.Contains(t, out, tc.want)
		})
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--help"}, 0, "reads a ResourceList on stdin", ""},
		{[]string{"--version"}, 0, "dev\n", ""},
		{[]string{"render"}, 2, "", `unexpected argument "render"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tc.code, run(tc.args, strings.NewReader(""), &stdout, &stderr, render.Render))
			assert.Contains(t, stdout.String(), tc.stdout)
			assert.Contains(t, stderr.String(), tc.stderr)
		})
	}
}

func TestNotAResourceList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "odlm-render-fn: ResourceList: empty input: expected a ResourceList\n"},
		{"a plain object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "odlm-render-fn: ResourceList:2: kind is \"ConfigMap\", not ResourceList\n"},
		{"bad YAML", "kind: ResourceList\nitems: [\n", "odlm-render-fn: ResourceList:2: invalid YAML/JSON: did not find expected node content\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 1, run(nil, strings.NewReader(tc.in), &stdout, &stderr, render.Render))
			assert.Empty(t, stdout.String(), "nothing is written")
			assert.Equal(t, tc.want, stderr.String())
		})
	}
}
