package render_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestPublicAPIIsSelfContained renders with nothing but the public packages, as a program
// outside this module would.
func TestPublicAPIIsSelfContained(t *testing.T) {
	t.Parallel()
	objs, err := render.DecodeObjects("in.yaml", []byte(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: nfs, packageName: nfs-provisioner-operator, channel: alpha, sourceName: community-operators, sourceNamespace: openshift-marketplace}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: r, namespace: cs}
spec:
  requests:
  - registry: common-service
    operands: [{name: nfs}]
`))
	require.NoError(t, err)
	cat, err := catalog.Load(refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator"))
	require.NoError(t, err)
	snapshot := render.NewSnapshot([]*render.Object{render.NewObject(map[string]any{
		"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
		"metadata": map[string]any{"name": "existing", "namespace": "cs"},
	})})
	out := render.Render(render.Inputs{Objects: objs, Catalog: cat}, render.Options{
		Sources: render.Sources{{Origin: "snapshot", Reader: snapshot}},
	})
	require.False(t, out.Results.HasErrors(), "%v", out.Results)
	kinds := map[string]int{}
	for _, o := range out.Objects {
		kinds[o.Kind()]++
	}
	require.Equal(t, map[string]int{"Subscription": 1}, kinds, "the snapshot's OperatorGroup stops a second one")
}
