package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testcluster"
	"github.com/odlm-render/odlm-render/pkg/cli"
	"github.com/odlm-render/odlm-render/pkg/cluster"
	"github.com/odlm-render/odlm-render/pkg/manifest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testcluster.Stop()
	os.Exit(code)
}

const liveCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sizings.example.com}
spec:
  group: example.com
  names: {kind: Sizing, plural: sizings, singular: sizing, listKind: SizingList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// liveInputs are ODLM inputs in namespace ns whose templates read a ConfigMap, a Secret and a
// custom resource that exist only in the cluster.
func liveInputs(t *testing.T, ns string) string {
	t.Helper()
	dir := t.TempDir()
	doc := strings.ReplaceAll(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: NS}
spec:
  operators:
  - {name: nfs, packageName: nfs-provisioner-operator, channel: alpha, sourceName: community-operators, sourceNamespace: openshift-marketplace}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandConfig
metadata: {name: common-service, namespace: NS}
spec:
  services:
  - name: nfs
    spec:
      NFSProvisioner:
        storageSize: {templatingValueFrom: {required: true, objectRef: {apiVersion: example.com/v1, kind: Sizing, name: default, path: .spec.storage}}}
        scForNFSPvc: {templatingValueFrom: {required: true, configMapKeyRef: {name: storage, key: class}}}
    resources:
    - apiVersion: v1
      kind: Secret
      name: nfs-credentials
      data:
        stringData:
          password: {templatingValueFrom: {required: true, secretKeyRef: {name: admin, key: password}}}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: my-request, namespace: NS}
spec:
  requests:
  - registry: common-service
    operands:
    - name: nfs
`, "NS", ns)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "odlm.yaml"), []byte(doc), 0o644))
	return dir
}

func TestLiveClusterValuesAndTheSameFromASnapshotExport(t *testing.T) {
	c := testcluster.Start(t)
	c.Apply(t, liveCRD)
	ns := c.Namespace(t)
	objects := strings.ReplaceAll(`apiVersion: v1
kind: ConfigMap
metadata: {name: storage, namespace: NS}
data: {class: gp3-csi}
---
apiVersion: v1
kind: Secret
metadata: {name: admin, namespace: NS}
stringData: {password: live-secret-value}
---
apiVersion: example.com/v1
kind: Sizing
metadata: {name: default, namespace: NS}
spec: {storage: 42G}
`, "NS", ns)
	c.Apply(t, objects)
	in := liveInputs(t, ns)
	catalog := "--catalog=../../testdata/catalogs/community/nfs-provisioner-operator"

	code, live, stderr := run(t, "", "render", in, catalog, "--live", "--kubeconfig", c.AdminKubeconfig(), "--explain")
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, live, "storageSize: 42G")
	assert.Contains(t, live, "scForNFSPvc: gp3-csi")
	assert.Contains(t, live, "password: live-secret-value", "inline is ODLM's behaviour")
	assert.Contains(t, stderr, "(live)")
	assert.NotContains(t, stderr, "live-secret-value")

	// export the referenced objects the way `kubectl get -o yaml` would, and render from it
	reader, err := newAdminReader(c)
	require.NoError(t, err)
	var export []*manifest.Object
	for _, ref := range [][4]string{{"v1", "ConfigMap", ns, "storage"}, {"v1", "Secret", ns, "admin"}, {"example.com/v1", "Sizing", ns, "default"}} {
		obj, found, err := reader.Get(ref[0], ref[1], ref[2], ref[3])
		require.NoError(t, err)
		require.True(t, found, "%v", ref)
		export = append(export, manifest.New(obj))
	}
	snapshot := filepath.Join(t.TempDir(), "export.yaml")
	f, err := os.Create(snapshot)
	require.NoError(t, err)
	require.NoError(t, manifest.WriteYAML(f, export))
	require.NoError(t, f.Close())
	code, fromSnapshot, stderr := run(t, "", "render", in, catalog, "--snapshot", snapshot)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Equal(t, live, fromSnapshot, "a snapshot export of the cluster renders the same output")
}

func newAdminReader(c *testcluster.Cluster) (*cluster.Live, error) {
	return cluster.NewLive(cluster.LiveOptions{Kubeconfig: c.AdminKubeconfig()})
}

func TestLiveForbiddenIsAClearError(t *testing.T) {
	c := testcluster.Start(t)
	c.Apply(t, liveCRD)
	ns := c.Namespace(t)
	c.Apply(t, strings.ReplaceAll("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: storage, namespace: NS}\ndata: {class: gp3-csi}\n", "NS", ns))
	c.GrantReader(t, ns, []string{"configmaps"}, []string{"get"})
	code, out, stderr := run(t, "", "render", liveInputs(t, ns), "--catalog=../../testdata/catalogs/community/nfs-provisioner-operator",
		"--live", "--kubeconfig", c.ReaderKubeconfig())
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "forbidden")
	assert.Contains(t, stderr, "spec.services[0].resources[0].data.stringData.password", "the error names the template's field")
}

func TestLiveUnreachableFailsFast(t *testing.T) {
	kubeconfig := testcluster.UnreachableKubeconfig(t)
	start := time.Now()
	code, out, stderr := run(t, "", "render", liveInputs(t, "cs"), "--catalog=../../testdata/catalogs/community/nfs-provisioner-operator",
		"--live", "--kubeconfig", kubeconfig)
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "unreachable")
	assert.Less(t, time.Since(start), 15*time.Second)
}

func TestLiveFlagsNeedLive(t *testing.T) {
	code, _, stderr := run(t, "", "render", "--kubeconfig", "x", "../../examples/quickstart/manifests")
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, stderr, "only apply with --live")
}
