package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/cluster/live"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testcluster.Stop()
	if cliBin != "" { // the CLI binary some tests build (argocd_test.go)
		_ = os.RemoveAll(filepath.Dir(cliBin))
	}
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

// olmCRDs serve OLM's Subscription, OperatorGroup and CatalogSource kinds (schemas left open:
// the tests need them listed, not validated).
var olmCRDs = openCRD("Subscription", "subscriptions", "v1alpha1") + "---\n" +
	openCRD("OperatorGroup", "operatorgroups", "v1") + "---\n" +
	openCRD("CatalogSource", "catalogsources", "v1alpha1")

// openCRD is a CRD of operators.coreos.com that accepts any object.
func openCRD(kind, plural, version string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[2]s.operators.coreos.com}
spec:
  group: operators.coreos.com
  names: {kind: %[1]s, plural: %[2]s, listKind: %[1]sList}
  scope: Namespaced
  versions:
  - {name: %[3]s, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`, kind, plural, version)
}

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
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
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
	catalog := "--catalog=" + nfsCatalog

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

func newAdminReader(c *testcluster.Cluster) (*live.Reader, error) {
	return live.NewReader(live.Options{Kubeconfig: c.AdminKubeconfig()})
}

func TestLiveForbiddenIsAClearError(t *testing.T) {
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
	c := testcluster.Start(t)
	c.Apply(t, liveCRD)
	ns := c.Namespace(t)
	c.Apply(t, strings.ReplaceAll("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: storage, namespace: NS}\ndata: {class: gp3-csi}\n", "NS", ns))
	c.GrantReader(t, ns, []string{"configmaps"}, []string{"get"})
	code, out, stderr := run(t, "", "render", liveInputs(t, ns), "--catalog="+nfsCatalog,
		"--live", "--kubeconfig", c.ReaderKubeconfig())
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "forbidden")
	assert.Contains(t, stderr, "spec.services[0].resources[0].data.stringData.password", "the error names the template's field")
}

func TestLiveUnreachableFailsFast(t *testing.T) {
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
	kubeconfig := testcluster.UnreachableKubeconfig(t)
	start := time.Now()
	code, out, stderr := run(t, "", "render", liveInputs(t, "cs"), "--catalog="+nfsCatalog,
		"--live", "--kubeconfig", kubeconfig)
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "unreachable")
	assert.Less(t, time.Since(start), 15*time.Second)
}

func TestLiveFlagsNeedLive(t *testing.T) {
	t.Parallel()
	code, _, stderr := run(t, "", "render", "--kubeconfig", "x", "../../examples/quickstart/manifests")
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, stderr, "only apply with --live")
}

// esoCRDs returns the External Secrets Operator CRDs that scripts/tools.sh fetched.
func esoCRDs(t *testing.T) []string {
	t.Helper()
	dir := "../../.cache/tools/crds/external-secrets-v0.20.4"
	var out []string
	for _, f := range []string{"external-secrets.io_secretstores.yaml", "external-secrets.io_externalsecrets.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			if os.Getenv("ODLM_RENDER_REQUIRE_TOOLS") == "1" {
				t.Fatalf("ESO CRDs missing (scripts/tools.sh fetches them): %v", err)
			}
			t.Skipf("ESO CRDs missing (scripts/tools.sh fetches them): %v", err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestExternalSecretsOutputIsValidAgainstESOCRDs(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	for _, crd := range esoCRDs(t) {
		c.Apply(t, crd)
	}
	c.Apply(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: cs}\n")
	code, out, stderr := run(t, "", "render", "../../testdata/render/bindinfo-secrets-external-secrets/input", "--bindinfo-secrets", "external-secrets")
	require.Equal(t, cli.ExitOK, code, stderr)
	objs, err := manifest.Decode("out", []byte(out))
	require.NoError(t, err)
	validated := map[string]int{}
	for _, o := range objs {
		switch o.Kind() {
		case "ExternalSecret", "SecretStore", "ServiceAccount", "Role", "RoleBinding", "ConfigMap":
			require.NoError(t, c.DryRunCreate(o.Map), "%s", o.Ref())
			validated[o.Kind()]++
		}
	}
	assert.Equal(t, map[string]int{"ExternalSecret": 2, "SecretStore": 1, "ServiceAccount": 1, "Role": 1, "RoleBinding": 1, "ConfigMap": 2}, validated)
	for _, o := range objs {
		assert.False(t, o.Kind() == "Secret" && o.Namespace() == "apps", "no Secret with data is copied in this mode: %s", o.Ref())
	}

	// the validation is real: a broken ExternalSecret is refused
	for _, o := range objs {
		if o.Kind() == "ExternalSecret" {
			o.Map["spec"].(map[string]any)["refreshInterval"] = map[string]any{"not": "a duration"}
			require.Error(t, c.DryRunCreate(o.Map))
			break
		}
	}
}

func TestBindInfoCopiesALiveSource(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	src, dst := c.Namespace(t), c.Namespace(t)
	c.Apply(t, strings.ReplaceAll("apiVersion: v1\nkind: Secret\nmetadata: {name: db-credentials, namespace: NS, labels: {app: db}}\ntype: Opaque\nstringData: {password: live-bindinfo-secret}\n", "NS", src))
	dir := t.TempDir()
	doc := strings.NewReplacer("SRC", src, "DST", dst).Replace(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: SRC}
spec:
  operators:
  - {name: db, packageName: db-operator, channel: stable, scope: public, sourceName: catalog, sourceNamespace: olm}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandBindInfo
metadata: {name: db-bindinfo, namespace: SRC}
spec:
  operand: db
  registry: common-service
  bindings:
    public: {secret: db-credentials}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: app, namespace: DST}
spec:
  requests:
  - registry: common-service
    registryNamespace: SRC
    operands:
    - name: db
`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "odlm.yaml"), []byte(doc), 0o644))
	code, out, stderr := run(t, "", "render", dir, "--live", "--kubeconfig", c.AdminKubeconfig(), "-v")
	require.Equal(t, cli.ExitOK, code, stderr)
	objs, err := manifest.Decode("out", []byte(out))
	require.NoError(t, err)
	var copied *manifest.Object
	for _, o := range objs {
		if o.Kind() == "Secret" && o.Namespace() == dst {
			copied = o
		}
	}
	require.NotNil(t, copied, "the copy of the live Secret is rendered")
	assert.Equal(t, "db-bindinfo-db-credentials", copied.Name())
	assert.Equal(t, map[string]any{"password": "bGl2ZS1iaW5kaW5mby1zZWNyZXQ="}, copied.Map["data"])
	assert.Equal(t, "db", copied.Labels()["app"])
	assert.NotContains(t, stderr, "live-bindinfo-secret")
	assert.NotContains(t, stderr, "bGl2ZS1iaW5kaW5mby1zZWNyZXQ=")
}
