package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// odlmCRDs serve ODLM's OperandRegistry and OperandConfig (schemas left open).
const odlmCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: operandregistries.operator.ibm.com}
spec:
  group: operator.ibm.com
  names: {kind: OperandRegistry, plural: operandregistries, listKind: OperandRegistryList}
  scope: Namespaced
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: operandconfigs.operator.ibm.com}
spec:
  group: operator.ibm.com
  names: {kind: OperandConfig, plural: operandconfigs, listKind: OperandConfigList}
  scope: Namespaced
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`

// TestLiveRegistryAndConfigFromTheCluster is the common layout of IBM's foundational
// services: an operator created the OperandRegistry and OperandConfig in the cluster, and the
// repository holds only the OperandRequest. --live reads both (docs/semantics.md, Decided deviations: one look-up order) and renders from
// them; neither is in the output.
func TestLiveRegistryAndConfigFromTheCluster(t *testing.T) {
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
	c := testcluster.Start(t)
	c.Apply(t, odlmCRDs)
	c.Apply(t, olmCRDs)
	ns := c.Namespace(t)
	c.Apply(t, strings.ReplaceAll(`apiVersion: operator.ibm.com/v1alpha1
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
    resources:
    - {apiVersion: v1, kind: ConfigMap, name: nfs-settings, data: {data: {size: small}}}
`, "NS", ns))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "request.yaml"), []byte(strings.ReplaceAll(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: my-request, namespace: NS}
spec:
  requests:
  - registry: common-service
    operands:
    - name: nfs
`, "NS", ns)), 0o644))

	code, out, stderr := run(t, "", "render", dir, "--catalog="+nfsCatalog, "--live", "--kubeconfig", c.AdminKubeconfig())
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "kind: Subscription")
	assert.Contains(t, out, "name: nfs-settings", "the resource of the cluster's OperandConfig")
	assert.NotContains(t, out, "kind: OperandRegistry", "read from the cluster: never emitted")
	assert.NotContains(t, out, "kind: OperandConfig")
}
