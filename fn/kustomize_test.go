package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// tool finds a pinned tool installed by scripts/tools.sh (see internal/testtools).
func tool(t *testing.T, name string) string { return testtools.Tool(t, name) }

var (
	buildOnce sync.Once
	builtFn   string
	buildErr  error
	buildOut  []byte
)

// buildFunction compiles the KRM function once per test binary and returns its path.
func buildFunction(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "odlm-render-fn-")
		if err != nil {
			buildErr = err
			return
		}
		builtFn = filepath.Join(dir, "odlm-render-fn")
		cmd := exec.Command("go", "build", "-o", builtFn, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	require.NoError(t, buildErr, "%s", buildOut)
	return builtFn
}

func TestMain(m *testing.M) {
	// as a pipeline owner would: the function may read the repository's examples and test
	// data, and the reference folder, wherever a test runs it (in process or under kustomize
	// and kpt, which pass it their environment)
	roots := []string{refdata.RepoRoot(), os.TempDir()} // the tests copy packages into temporary folders
	if ref, err := refdata.Root(); err == nil {
		roots = append(roots, ref)
	}
	if err := os.Setenv(EnvReadPaths, strings.Join(roots, string(filepath.ListSeparator))); err != nil {
		panic(err)
	}
	code := m.Run()
	if builtFn != "" {
		_ = os.RemoveAll(filepath.Dir(builtFn))
	}
	os.Exit(code)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.CopyFS(to, os.DirFS(from)))
}

// kustomizeDir lays out a kustomization that runs the function as an exec transformer
// over the given manifest folder.
func kustomizeDir(t *testing.T, manifests string) string {
	t.Helper()
	dir := t.TempDir()
	fn := buildFunction(t)
	copyTree(t, manifests, filepath.Join(dir, "manifests"))
	copyTree(t, quickstart+"/catalog", filepath.Join(dir, "catalog"))
	entries, err := os.ReadDir(manifests)
	require.NoError(t, err)
	k := "resources:\n"
	for _, e := range entries {
		k += "- manifests/" + e.Name() + "\n"
	}
	k += "transformers:\n- render.yaml\nbuildMetadata: [originAnnotations]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644))
	render := `apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ` + fn + `
spec:
  catalogs: [catalog]
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "render.yaml"), []byte(render), 0o644))
	return dir
}

// exampleRepo copies examples/ into a temporary repository root with the built function at
// bin/odlm-render-fn, where the examples expect it.
func exampleRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, "../examples", filepath.Join(root, "examples"))
	b, err := os.ReadFile(buildFunction(t))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "odlm-render-fn"), b, 0o755))
	return root
}

func TestKustomizeBuildRunsTheExample(t *testing.T) {
	t.Parallel()
	kustomize := tool(t, "kustomize")
	root := exampleRepo(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(root, "examples", "kustomize"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())

	assertRendersTheExample(t, stdout.Bytes())

	// without --enable-exec kustomize skips the function silently: the objects are missing
	cmd = exec.Command(kustomize, "build", "--enable-alpha-plugins", filepath.Join(root, "examples", "kustomize"))
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), "kind: Subscription")
}

func TestKustomizeBuildFailsOnErrorResults(t *testing.T) {
	t.Parallel()
	kustomize := tool(t, "kustomize")
	dir := kustomizeDir(t, fnData+"/bad-request")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.Error(t, cmd.Run(), "an error result must fail the build: kustomize ignores results")
	assert.Contains(t, stderr.String(), "OperandRegistry apps/nowhere not found")
	// the message points at the user's file and line, as the CLI's do
	assert.Contains(t, stderr.String(), "odlm-render-fn: manifests/")
	assert.Regexp(t, `manifests/[a-z-]+\.yaml:[0-9]+: OperandRequest`, stderr.String())
	assert.Empty(t, stdout.String())
}

// TestKustomizeGeneratorReadsInputsFromFiles: as a generator the function gets no items, so
// the RenderConfig names its inputs.
func TestKustomizeGeneratorReadsInputsFromFiles(t *testing.T) {
	t.Parallel()
	kustomize := tool(t, "kustomize")
	root := exampleRepo(t)
	dir := filepath.Join(root, "examples", "generator")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("generators:\n- render.yaml\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "render.yaml"), []byte(`apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ../../bin/odlm-render-fn
spec:
  inputs: [../quickstart/manifests]
  catalogs: [../quickstart/catalog]
`), 0o644))
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	got, err := manifest.Decode("kustomize", stdout.Bytes())
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, o := range got {
		kinds[o.Kind()]++
	}
	assert.Equal(t, map[string]int{"Namespace": 2, "OperatorGroup": 1, "Subscription": 2, "ConfigMap": 1, "NFSProvisioner": 1, "SleepInfo": 2}, kinds)
}

// assertRendersTheExample checks a kustomize build of examples/kustomize: the same objects as
// the engine renders directly (kustomize passes the RenderConfig's options through; it strips
// path annotations).
func assertRendersTheExample(t *testing.T, built []byte) {
	t.Helper()
	got, err := manifest.Decode("kustomize", built)
	require.NoError(t, err)
	docs, err := inputs.ReadPaths([]string{"../examples/kustomize/registry.yaml", "../examples/kustomize/requests.yaml"}, nil)
	require.NoError(t, err)
	cat, err := inputs.LoadCatalog([]string{quickstart + "/catalog"}, nil)
	require.NoError(t, err)
	want := render.Render(render.Inputs{Objects: docs, Catalog: cat}, render.Options{Ordering: render.OrderingArgoCD})
	require.False(t, want.Results.HasErrors())
	manifest.Sort(got)
	var a, b bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&a, want.Objects))
	require.NoError(t, manifest.WriteYAML(&b, got))
	assert.Equal(t, a.String(), b.String())
	assert.Contains(t, b.String(), "kind: Subscription")
}
