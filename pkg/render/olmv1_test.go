package render_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/platform"
)

// TestOLMv1ObjectsPassOperatorControllersCRDs checks every ClusterExtension and
// ClusterCatalog the OLM v1 golden cases expect against operator-controller's own CRDs (v1.11.0,
// internal/platform/olmv1), as the API server would: nothing refused, nothing pruned.
func TestOLMv1ObjectsPassOperatorControllersCRDs(t *testing.T) {
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
			require.True(t, ok, o.Kind())
			require.NoError(t, err)
			res, err := def.Check(o.Map)
			require.NoError(t, err)
			assert.Empty(t, res.Problems, "%s: %s", c.Name(), o.Ref())
			assert.Empty(t, res.Pruned, "%s: %s", c.Name(), o.Ref())
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 3)
}
