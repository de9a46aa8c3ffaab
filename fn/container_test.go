package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testtools"
)

// The function as a container image, built from the Dockerfile's offline path
// (scripts/docker.sh build: FROM scratch, the binary of buildFunction, /etc/passwd with
// nobody) and run by kustomize and kpt through the docker CLI on $DOCKER_HOST
// (scripts/docker.sh start: a private dockerd without network). No image is ever pulled.

const testImage = "localhost/odlm-render-fn:gotest"

var (
	imageOnce sync.Once
	imageErr  error
)

// functionImage builds the function image once per test binary (about a second) from the
// function compiled for this test run, and returns its tag. The image the tag named before
// is removed, so that repeated runs leave nothing behind.
func functionImage(t *testing.T) string {
	t.Helper()
	d := testtools.Docker(t)
	fn := buildFunction(t)
	imageOnce.Do(func() { imageErr = testtools.BuildImage(d, "function", fn, testImage) })
	require.NoError(t, imageErr)
	return testImage
}

// useContainer rewrites the RenderConfig of a kustomizeDir to run the function image with
// the kustomization's catalog folder mounted at /catalog (read-only); `catalogs: [catalog]`
// is relative to the container's working directory, /.
func useContainer(t *testing.T, dir, image string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "render.yaml"), []byte(`apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
  annotations:
    config.kubernetes.io/function: |
      container:
        image: `+image+`
        mounts:
        - {type: bind, src: ./catalog, dst: /catalog}
spec:
  catalogs: [catalog]
`), 0o644))
}

func kustomizeBuild(t *testing.T, kustomize, dir string, flags ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, append(append([]string{"build"}, flags...), dir)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func TestContainerKustomizeBuildMatchesExec(t *testing.T) {
	t.Parallel()
	kustomize := tool(t, "kustomize")
	image := functionImage(t)

	execDir := kustomizeDir(t, quickstart+"/manifests")
	want, stderr, err := kustomizeBuild(t, kustomize, execDir, "--enable-alpha-plugins", "--enable-exec")
	require.NoError(t, err, stderr)

	dir := kustomizeDir(t, quickstart+"/manifests")
	useContainer(t, dir, image)
	// no --enable-exec: a container function needs only the alpha flag
	got, stderr, err := kustomizeBuild(t, kustomize, dir, "--enable-alpha-plugins")
	require.NoError(t, err, stderr)
	assert.Contains(t, got, "kind: Subscription", "kustomize skipped the function")
	assert.Contains(t, got, "kind: NFSProvisioner", "the mounted catalog was read")
	assert.Equal(t, want, got, "the container gives what the exec function gives")
}

func TestContainerKustomizeBuildFailsOnErrorResults(t *testing.T) {
	t.Parallel()
	kustomize := tool(t, "kustomize")
	image := functionImage(t)
	dir := kustomizeDir(t, fnData+"/bad-request")
	useContainer(t, dir, image)
	stdout, stderr, err := kustomizeBuild(t, kustomize, dir, "--enable-alpha-plugins")
	require.Error(t, err, "an error result must fail the build: kustomize ignores results")
	assert.Contains(t, stderr, "OperandRegistry apps/nowhere not found")
	assert.Empty(t, stdout)
}

func TestContainerKptFnEvalMatchesExec(t *testing.T) {
	t.Parallel()
	kpt := tool(t, "kpt")
	image := functionImage(t)
	root := exampleRepo(t)
	catalog := filepath.Join(root, "examples", "quickstart", "catalog")
	want := runKpt(t, kpt, root, "fn", "eval", "examples/kpt", "--exec", "bin/odlm-render-fn", "-o", "unwrap", "--", "catalogs=examples/quickstart/catalog")
	got := runKpt(t, kpt, root, "fn", "eval", "examples/kpt", "--image", image, "--image-pull-policy", "never",
		"--mount", "type=bind,src="+catalog+",dst=/catalog", "-o", "unwrap", "--", "catalogs=/catalog")
	assert.Contains(t, got, "kind: Subscription")
	assert.Contains(t, got, "storageSize: 10G")
	assert.Equal(t, want, got)
}

func TestContainerKptFnEvalFailsOnErrorResults(t *testing.T) {
	t.Parallel()
	kpt := tool(t, "kpt")
	image := functionImage(t)
	dir := filepath.Join(t.TempDir(), "bad")
	copyTree(t, fnData+"/bad-request", dir)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kpt, "fn", "eval", "bad", "--image", image, "--image-pull-policy", "never")
	cmd.Dir = filepath.Dir(dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.Error(t, cmd.Run())
	assert.Contains(t, stdout.String()+stderr.String(), "OperandRegistry apps/nowhere not found")
	b, err := os.ReadFile(filepath.Join(dir, "unknown-registry.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "kind: OperandRequest", "a failed run leaves the package as it was")
}

// replaceIn replaces old by new in a file, which must contain old.
func replaceIn(t *testing.T, path, old, replacement string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old, path)
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(b), old, replacement)), 0o644))
}

// A Kptfile pipeline cannot mount anything into a container function, and kpt refuses
// catalog blobs (not KRM) in a package: the catalog is baked into an image derived from the
// function image, at /catalog.
func TestContainerKptFnRenderMatchesExec(t *testing.T) {
	t.Parallel()
	kpt := tool(t, "kpt")
	image := functionImage(t)

	execRoot := exampleRepo(t)
	runKpt(t, kpt, execRoot, "fn", "render", "examples/kpt", "--allow-exec")
	want := snapshot(t, filepath.Join(execRoot, "examples", "kpt"))

	withCatalog := image + "-catalog"
	id := strings.TrimSpace(testtools.DockerRun(t, "create", "--network", "none", image))
	t.Cleanup(func() { _ = exec.Command(testtools.Docker(t), "rm", id).Run() })
	testtools.DockerRun(t, "cp", quickstart+"/catalog", id+":/catalog")
	testtools.DockerRun(t, "commit", id, withCatalog)
	t.Cleanup(func() { _ = exec.Command(testtools.Docker(t), "image", "rm", withCatalog).Run() })

	root := exampleRepo(t)
	dir := filepath.Join(root, "examples", "kpt")
	replaceIn(t, filepath.Join(dir, "Kptfile"), "exec: bin/odlm-render-fn", "image: "+withCatalog)
	replaceIn(t, filepath.Join(dir, "render.yaml"), "catalogs: [examples/quickstart/catalog]", "catalogs: [/catalog]")
	runKpt(t, kpt, root, "fn", "render", "examples/kpt", "--image-pull-policy", "never")
	got := snapshot(t, dir)
	assert.Contains(t, got, "odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml")
	for _, f := range []string{"Kptfile", "render.yaml"} { // these differ on purpose
		delete(want, f)
		delete(got, f)
	}
	assert.Equal(t, want, got)

	runKpt(t, kpt, root, "fn", "render", "examples/kpt", "--image-pull-policy", "never")
	again := snapshot(t, dir)
	delete(again, "Kptfile")
	delete(again, "render.yaml")
	assert.Equal(t, got, again, "a second render changes nothing")
}

// kustomize and kpt run container functions with --user nobody: the image names that user
// in /etc/passwd, defaults to it, and the function works under it on a read-only root.
func TestContainerRunsAsNobody(t *testing.T) {
	t.Parallel()
	image := functionImage(t)
	assert.Equal(t, "65534:65534", strings.TrimSpace(testtools.DockerRun(t, "image", "inspect", "--format", "{{.Config.User}}", image)))
	assert.Equal(t, `["/usr/local/bin/odlm-render-fn"]`, strings.TrimSpace(testtools.DockerRun(t, "image", "inspect", "--format", "{{json .Config.Entrypoint}}", image)))

	id := strings.TrimSpace(testtools.DockerRun(t, "create", "--network", "none", image))
	t.Cleanup(func() { _ = exec.Command(testtools.Docker(t), "rm", id).Run() })
	files := map[string]string{}
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		tr := tar.NewReader(strings.NewReader(testtools.DockerRun(t, "cp", id+":"+f, "-")))
		_, err := tr.Next()
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		files[f] = string(b)
	}
	assert.Contains(t, files["/etc/passwd"], "\nnobody:x:65534:65534:")
	assert.Contains(t, files["/etc/group"], "\nnobody:x:65534:")

	catalog, err := filepath.Abs(quickstart + "/catalog")
	require.NoError(t, err)
	in := resourceList(t, quickstart+"/manifests", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: render}\ndata: {catalogs: "+catalog+"}\n")
	var want bytes.Buffer
	direct := exec.Command(buildFunction(t))
	direct.Stdin, direct.Stdout, direct.Stderr = bytes.NewReader(in), &want, os.Stderr
	require.NoError(t, direct.Run())

	// as kustomize and kpt run it, plus a read-only root file system
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(testtools.Docker(t), "run", "--rm", "-i", "--network", "none", "--user", "nobody",
		"--security-opt=no-new-privileges", "--read-only",
		"--mount", "type=bind,source="+catalog+",target="+catalog+",readonly", image)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Contains(t, stdout.String(), "kind: Subscription")
	assert.Equal(t, want.String(), stdout.String(), "the container gives what the exec function gives")
}
