package upgradepath_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// TestCheckPinsCases are the cases --check-pins (pkg/render) asked of its own search before it
// used Find: the same answers.
func TestCheckPinsCases(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(refdata.Testdata(t, "catalogs/community/kube-green"))
	require.NoError(t, err)
	pkg, _ := cat.Package("kube-green")
	for _, tc := range []struct {
		from, to string
		want     bool
	}{
		{"kube-green.v0.3.0", "kube-green.v0.7.1", true},
		{"kube-green.v0.6.0", "kube-green.v0.7.0", true},
		{"kube-green.v0.7.1", "kube-green.v0.5.0", false},
		{"kube-green.v0.5.0", "not-in-channel", false},
	} {
		_, err := upgradepath.Find(pkg, "alpha", tc.from, tc.to)
		assert.Equal(t, tc.want, err == nil, "%s -> %s: %v", tc.from, tc.to, err)
	}
}

func TestCheckPinsCasesThroughSkipsAndSkipRange(t *testing.T) {
	t.Parallel()
	b := fbc.NewBuilder(catalog.LoadOptions{})
	require.NoError(t, b.AddBytes("c.yaml", []byte(`schema: olm.package
name: p
defaultChannel: s
---
schema: olm.channel
package: p
name: s
entries:
- {name: p.v1.0.0}
- {name: p.v1.1.0, replaces: p.v1.0.0}
- {name: p.v2.0.0, replaces: p.v1.1.0, skipRange: ">=1.0.0 <2.0.0", skips: [p.v1.5.0]}
---
{schema: olm.bundle, name: p.v1.0.0, package: p, image: x, properties: [{type: olm.package, value: {packageName: p, version: 1.0.0}}]}
---
{schema: olm.bundle, name: p.v1.1.0, package: p, image: x, properties: [{type: olm.package, value: {packageName: p, version: 1.1.0}}]}
---
{schema: olm.bundle, name: p.v2.0.0, package: p, image: x, properties: [{type: olm.package, value: {packageName: p, version: 2.0.0}}]}
`)))
	cat, err := b.Catalog()
	require.NoError(t, err)
	pkg, _ := cat.Package("p")
	reaches := func(from, to string) bool {
		_, err := upgradepath.Find(pkg, "s", from, to)
		return err == nil
	}
	assert.True(t, reaches("p.v1.0.0", "p.v2.0.0"), "skipRange covers 1.0.0")
	assert.True(t, reaches("p.v1.5.0", "p.v2.0.0"), "skips")
	assert.False(t, reaches("p.v2.0.0", "p.v1.1.0"))
}
