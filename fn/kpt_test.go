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

func TestKptFnRenderTheExampleWritesStableFilesAndIsIdempotent(t *testing.T) {
	t.Parallel()
	kpt := tool(t, "kpt")
	root := exampleRepo(t)
	dir := filepath.Join(root, "examples", "kpt")
	runKpt(t, kpt, root, "fn", "render", "examples/kpt", "--allow-exec")
	first := snapshot(t, dir)
	for _, f := range []string{
		"odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml",
		"odlm-rendered/openshift-operators/subscription_kube-green.yaml",
		"odlm-rendered/platform/operatorgroup_operand-deployment-lifecycle-manager-operatorgroup.yaml",
		"odlm-rendered/platform/nfsprovisioner_nfsprovisioner-sample.yaml",
		"odlm-rendered/team-a/sleepinfo_team-a-nights.yaml",
		"platform.yaml", "render.yaml", "Kptfile",
	} {
		assert.Contains(t, first, f)
	}
	assert.Contains(t, first["platform.yaml"], "kind: OperandRegistry", "local-config ODLM inputs stay in the package")
	assert.NotContains(t, first["Kptfile"], "opreq-control", "the Kptfile is untouched")
	assert.Contains(t, first["odlm-rendered/platform/subscription_nfs-provisioner-operator.yaml"], "cpu: 100m")
	assert.Contains(t, first["odlm-rendered/platform/nfsprovisioner_nfsprovisioner-sample.yaml"], "config.kubernetes.io/depends-on", "the example asks for kpt ordering")

	runKpt(t, kpt, root, "fn", "render", "examples/kpt", "--allow-exec")
	assert.Equal(t, first, snapshot(t, dir), "a second render changes nothing")
}

func TestKptFnEvalWithKeyValueConfig(t *testing.T) {
	t.Parallel()
	kpt := tool(t, "kpt")
	root := exampleRepo(t)
	out := runKpt(t, kpt, root, "fn", "eval", "examples/kpt", "--exec", "bin/odlm-render-fn", "-o", "unwrap", "--", "catalogs=examples/quickstart/catalog")
	assert.Contains(t, out, "kind: Subscription")
	assert.Contains(t, out, "name: nfsprovisioner-sample")
	assert.Contains(t, out, "storageSize: 10G")
}

func TestKptReportsErrorResults(t *testing.T) {
	t.Parallel()
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
