package render_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/platform"
)

// TestOLMv1ObjectsPassOperatorControllersCRDs checks every ClusterExtension and
// ClusterCatalog the OLM v1 golden cases expect against operator-controller's own CRDs (v1.11.0,
// internal/platform/olmv1), as the API server would: nothing refused, nothing pruned.
func TestOLMv1ObjectsPassOperatorControllersCRDs(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, c := range golden.Cases(t, casesDir) {
		if c.OLM != "v1" {
			continue
		}
		objs, err := manifest.Decode(c.Name(), []byte(c.ExpectedYAML(t)))
		require.NoError(t, err)
		for _, o := range objs {
			if o.Group() != "olm.operatorframework.io" {
				continue
			}
			def, ok, err := platform.LookupCRD(o.Group(), o.Kind())
			if c.OLMv1WatchNamespace && o.Kind() == "ClusterExtension" {
				def, ok, err = experimentalClusterExtension(t), true, nil
			}
			require.True(t, ok, o.Kind())
			require.NoError(t, err)
			res, err := def.Check(o.Map)
			require.NoError(t, err)
			assert.Empty(t, res.Problems, "%s: %s", c.Name(), o.Ref())
			assert.Empty(t, res.Pruned, "%s: %s", c.Name(), o.Ref())
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 8)
}

// experimentalClusterExtension is operator-controller v1.11.0's experimental ClusterExtension
// CRD, which serves spec.config (--olm-v1-watch-namespace).
func experimentalClusterExtension(t *testing.T) *crd.Definition {
	t.Helper()
	data, err := os.ReadFile("../../internal/platform/olmv1/experimental/olm.operatorframework.io_clusterextensions.yaml")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(data, &m))
	def, err := crd.Parse(m)
	require.NoError(t, err)
	return def
}
