package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kptPackage lays out a kpt package: the quickstart's ODLM inputs annotated local-config
// (so that `kpt live apply` would skip them), a RenderConfig and a Kptfile pipeline that
// runs the function.
func kptPackage(t *testing.T, fn string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	copyTree(t, quickstart+"/manifests", dir)
	for _, f := range []string{"registry.yaml", "requests.yaml"} {
		p := filepath.Join(dir, f)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		s := strings.ReplaceAll(string(b), "kind: OperandRegistry\nmetadata:\n", "kind: OperandRegistry\nmetadata:\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n")
		s = strings.ReplaceAll(s, "kind: OperandConfig\nmetadata:\n", "kind: OperandConfig\nmetadata:\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n")
		s = strings.ReplaceAll(s, "kind: OperandRequest\nmetadata:\n", "kind: OperandRequest\nmetadata:\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n")
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	catalog, err := filepath.Abs(quickstart + "/catalog")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "render.yaml"), []byte(`apiVersion: odlm-render.io/v1alpha1
kind: RenderConfig
metadata:
  name: render
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  catalogs: [`+catalog+`]
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Kptfile"), []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations: {config.kubernetes.io/local-config: "true"}
pipeline:
  mutators:
  - exec: `+fn+`
    configPath: render.yaml
`), 0o644))
	return dir
}

// snapshot reads every file of a package.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	}))
	return files
}

func runKpt(t *testing.T, kpt, dir string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kpt, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "kpt %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.String()
}

func TestKptFnRenderWritesStableFilesAndIsIdempotent(t *testing.T) {
	kpt := tool(t, "kpt")
	fn := buildFunction(t)
	dir := kptPackage(t, fn)
	runKpt(t, kpt, filepath.Dir(dir), "fn", "render", "pkg", "--allow-exec")
	first := snapshot(t, dir)
	for _, f := range []string{
		"odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml",
		"odlm-rendered/openshift-operators/subscription_kube-green.yaml",
		"odlm-rendered/platform/operatorgroup_operand-deployment-lifecycle-manager-operatorgroup.yaml",
		"odlm-rendered/platform/nfsprovisioner_nfsprovisioner-sample.yaml",
		"odlm-rendered/team-a/sleepinfo_team-a-nights.yaml",
		"registry.yaml", "requests.yaml", "render.yaml", "Kptfile",
	} {
		assert.Contains(t, first, f)
	}
	assert.Contains(t, first["registry.yaml"], "kind: OperandRegistry", "local-config ODLM inputs stay in the package")
	assert.NotContains(t, first["Kptfile"], "opreq-control", "the Kptfile is untouched")
	assert.Contains(t, first["odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml"], "cpu: 100m")

	runKpt(t, kpt, filepath.Dir(dir), "fn", "render", "pkg", "--allow-exec")
	assert.Equal(t, first, snapshot(t, dir), "a second render changes nothing")
}

func TestKptFnEvalWithKeyValueConfig(t *testing.T) {
	kpt := tool(t, "kpt")
	fn := buildFunction(t)
	dir := kptPackage(t, fn)
	catalog, err := filepath.Abs(quickstart + "/catalog")
	require.NoError(t, err)
	out := runKpt(t, kpt, filepath.Dir(dir), "fn", "eval", "pkg", "--exec", fn, "-o", "unwrap", "--", "catalogs="+catalog)
	assert.Contains(t, out, "kind: Subscription")
	assert.Contains(t, out, "name: nfsprovisioner-sample")
	assert.Contains(t, out, "storageSize: 10G")
}

func TestKptReportsErrorResults(t *testing.T) {
	kpt := tool(t, "kpt")
	fn := buildFunction(t)
	dir := filepath.Join(t.TempDir(), "bad")
	copyTree(t, fnData+"/bad-request", dir)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kpt, "fn", "eval", "bad", "--exec", fn)
	cmd.Dir = filepath.Dir(dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.Error(t, cmd.Run())
	all := stdout.String() + stderr.String()
	assert.Contains(t, all, "OperandRegistry apps/nowhere not found")
	b, err := os.ReadFile(filepath.Join(dir, "unknown-registry.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "kind: OperandRequest", "a failed run leaves the package as it was")
}
