package fbc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallPackedWhileLoading: while a catalog loads, every bundle's install strategy and
// manifests are deflated, as its CRDs are; once the channels are known, the heads' are
// unpacked as canonical JSON and the others' dropped.
func TestInstallPackedWhileLoading(t *testing.T) {
	t.Parallel()
	bu := NewBuilder(LoadOptions{})
	require.NoError(t, bu.AddPath(bundleObjectCatalog(t)))
	loading := 0
	for _, p := range bu.packages {
		for name, b := range p.Bundles {
			require.NotNil(t, b.Contents, name)
			assert.Nil(t, b.Contents.Install, name)
			assert.Nil(t, b.Contents.Manifests, name)
			assert.NotEmpty(t, b.Contents.packedInstall, name)
			loading++
		}
	}
	assert.Greater(t, loading, 10)

	c, err := bu.Catalog()
	require.NoError(t, err)
	heads := 0
	for _, pn := range c.PackageNames() {
		p, _ := c.Package(pn)
		isHead := p.heads()
		for name, b := range p.Bundles {
			if !isHead[name] {
				assert.Nil(t, b.Contents, name)
				continue
			}
			heads++
			ct := b.Contents
			require.NotNil(t, ct.Install, name)
			assert.Nil(t, ct.packedInstall, name)
			require.Len(t, ct.Manifests, len(ct.Objects), name)
			for i, raw := range ct.Manifests {
				m, err := ct.Manifest(i)
				require.NoError(t, err)
				want, err := canonicalJSON(m)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(raw), "%s manifest %d is canonical", name, i)
			}
			for i, d := range ct.Install.Deployments {
				spec, err := ct.DeploymentSpec(i)
				require.NoError(t, err)
				want, err := canonicalJSON(spec)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(d.Spec), "%s deployment %d is canonical", name, i)
			}
		}
	}
	assert.GreaterOrEqual(t, heads, 3)
}
