package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestPathAnnotationsReadOnlyRegularFilesInThePackage: an item's path annotation names the
// file the function reads to put line numbers on its results. The ResourceList is input: a
// path to /dev/zero, a FIFO or a file outside the working directory (where kustomize and kpt
// run the function) must be neither read nor waited for; the results then carry no line.
func TestPathAnnotationsReadOnlyRegularFilesInThePackage(t *testing.T) {
	base := t.TempDir()
	pkg := filepath.Join(base, "pkg")
	require.NoError(t, os.Mkdir(pkg, 0o700))
	request := "apiVersion: operator.ibm.com/v1alpha1\nkind: OperandRequest\nmetadata: {name: app, namespace: apps}\nspec:\n  requests:\n  - registry: nowhere\n    operands: [{name: x}]\n"
	require.NoError(t, os.WriteFile(filepath.Join(base, "outside.yaml"), []byte(request), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "inside.yaml"), []byte(request), 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(pkg, "fifo.yaml"), 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(pkg, "zero.yaml")))
	require.NoError(t, os.Symlink(filepath.Join(base, "outside.yaml"), filepath.Join(pkg, "link.yaml")))
	t.Chdir(pkg)
	for _, tc := range []struct {
		path     string
		wantLine bool
	}{
		{"inside.yaml", true}, // the control: a file of the package gives its line
		{"fifo.yaml", false},
		{"zero.yaml", false},
		{"../outside.yaml", false},
		{"link.yaml", false},
		{filepath.Join(pkg, "inside.yaml"), false}, // absolute: not the orchestrator's relative path
	} {
		t.Run(tc.path, func(t *testing.T) {
			in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
				"- apiVersion: operator.ibm.com/v1alpha1\n  kind: OperandRequest\n  metadata:\n    name: app\n    namespace: apps\n" +
				"    annotations:\n      config.kubernetes.io/path: '" + tc.path + "'\n      internal.config.kubernetes.io/path: '" + tc.path + "'\n" +
				"  spec:\n    requests:\n    - registry: nowhere\n      operands: [{name: x}]\n"
			done := make(chan string, 1)
			go func() {
				var out, stderr bytes.Buffer
				code := run(nil, bytes.NewBufferString(in), &out, &stderr, render.Render)
				assert.Equal(t, 1, code)
				done <- stderr.String()
			}()
			select {
			case stderr := <-done:
				require.Contains(t, stderr, "OperandRegistry apps/nowhere not found")
				withLine := regexp.MustCompile(regexp.QuoteMeta(tc.path) + `:[0-9]+: `).MatchString(stderr)
				assert.Equal(t, tc.wantLine, withLine, stderr)
			case <-time.After(10 * time.Second):
				t.Fatal("the function did not end")
			}
		})
	}
}

// TestGeneratedPathsStayInTheirFolder: the path annotation of a rendered object is built from
// its namespace, kind and name; none of them can lead outside odlm-rendered/<namespace>/.
func TestGeneratedPathsStayInTheirFolder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ns, kind, name, want string }{
		{"apps", "ConfigMap", "db", "odlm-rendered/apps/configmap_db.yaml"},
		{"", "ClusterRole", "system:reader", "odlm-rendered/_cluster/clusterrole_system:reader.yaml"},
		{"..", "ConfigMap", "x", "odlm-rendered/_../configmap_x.yaml"},
		{"apps", "ConfigMap", "../../Evil Name", "odlm-rendered/apps/configmap_.._.._Evil Name.yaml"},
		{"apps", "../..", "x", "odlm-rendered/apps/.._.._x.yaml"},
		{"bad\nns", "ConfigMap", "x", "odlm-rendered/bad_ns/configmap_x.yaml"},
	} {
		o := manifest.New(map[string]any{"apiVersion": "v1", "kind": tc.kind, "metadata": map[string]any{"name": tc.name, "namespace": tc.ns}})
		got := generatedPath(o)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, "odlm-rendered", strings.Split(filepath.Clean(got), "/")[0])
		assert.Len(t, strings.Split(filepath.Clean(got), "/"), 3, got)
	}
}

// TestFunctionConfigPathsStayInThePackage: an exec function runs with the pipeline's binary
// but the package's functionConfig, so the package may name only files below the working
// directory (links followed): a catalog or snapshot elsewhere (../, absolute, a link out) is
// an error naming it, and nothing is read. The pipeline owner's ODLM_RENDER_FN_READ_PATHS,
// the function's environment, lets more through; a relative folder there is an error.
func TestFunctionConfigPathsStayInThePackage(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	pkg, outside := filepath.Join(base, "pkg"), filepath.Join(base, "shared-catalog")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	copyTree(t, quickstart+"/catalog", outside)
	copyTree(t, quickstart+"/catalog", filepath.Join(pkg, "catalog"))
	require.NoError(t, os.Symlink(outside, filepath.Join(pkg, "linked")))
	fn := buildFunction(t)
	var items []byte
	for _, f := range []string{"registry.yaml", "requests.yaml"} {
		b, err := os.ReadFile(quickstart + "/manifests/" + f)
		require.NoError(t, err)
		items = append(append(items, b...), "\n---\n"...)
	}
	run := func(env []string, catalogs string) (string, error) {
		rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: odlm-render.io/v1alpha1\n  kind: RenderConfig\n  metadata: {name: render}\n  spec:\n    catalogs: [" + catalogs + "]\nitems:\n"
		docs, err := manifest.Decode("odlm.yaml", items)
		require.NoError(t, err)
		for _, d := range docs {
			b, err := manifest.MarshalYAML(d.Map)
			require.NoError(t, err)
			rl += "- " + strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", "\n  ") + "\n"
		}
		cmd := exec.Command(fn)
		cmd.Dir, cmd.Stdin = pkg, strings.NewReader(rl)
		cmd.Env = append(withoutReadPaths(os.Environ()), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		return stderr.String(), err
	}
	stderr, err := run(nil, "catalog")
	require.NoError(t, err, "a catalog of the package: %s", stderr)
	for _, catalogs := range []string{"../shared-catalog", outside, "linked"} {
		stderr, err := run(nil, catalogs)
		require.Error(t, err, catalogs)
		assert.Contains(t, stderr, "resolves outside .", catalogs)
	}
	stderr, err = run([]string{EnvReadPaths + "=" + outside}, "../shared-catalog")
	require.NoError(t, err, "the pipeline owner's folder: %s", stderr)
	stderr, err = run([]string{EnvReadPaths + "=relative/folder"}, "catalog")
	require.Error(t, err)
	assert.Contains(t, stderr, `ODLM_RENDER_FN_READ_PATHS: "relative/folder" is not an absolute path`)
}

// withoutReadPaths is env without EnvReadPaths (TestMain sets it for the other tests).
func withoutReadPaths(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, EnvReadPaths+"=") {
			out = append(out, e)
		}
	}
	return out
}
