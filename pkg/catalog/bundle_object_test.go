package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// TestBundleObjectShapeReadsLikeCSVMetadata loads the same package from a catalog rendered
// the older way (every bundle manifest as an olm.bundle.object property: the CSV, the CRD;
// community-operators-prod catalogs/v4.16) and the newer way (olm.csv.metadata; catalogs/v4.20
// in testdata/catalogs): what rendering reads of each bundle is the same.
func TestBundleObjectShapeReadsLikeCSVMetadata(t *testing.T) {
	old, err := catalog.Load("../../testdata/catalogs-bundle-object/community-v4.16/kube-green")
	require.NoError(t, err)
	cur, err := catalog.Load("../../testdata/catalogs/community/kube-green")
	require.NoError(t, err)
	po, ok := old.Package("kube-green")
	require.True(t, ok)
	pc, ok := cur.Package("kube-green")
	require.True(t, ok)

	assert.Equal(t, pc.DefaultChannel, po.DefaultChannel)
	assert.Equal(t, pc.ChannelNames(), po.ChannelNames())
	for _, ch := range pc.ChannelNames() {
		assert.Equal(t, pc.Channels[ch].Entries, po.Channels[ch].Entries, "channel %s", ch)
		ho, err := po.HeadBundle(ch)
		require.NoError(t, err)
		hc, err := pc.HeadBundle(ch)
		require.NoError(t, err)
		assert.Equal(t, hc.Name, ho.Name, "head of %s", ch)
	}
	compared := 0
	for _, name := range pc.BundleNames() {
		bo, inOld := po.Bundles[name]
		if !inOld {
			continue
		}
		bc := pc.Bundles[name]
		compared++
		assert.Equal(t, bc.CSVName, bo.CSVName, name)
		assert.Equal(t, bc.Version, bo.Version, name)
		assert.Equal(t, bc.InstallModes, bo.InstallModes, name)
		assert.Equal(t, bc.ProvidedGVKs, bo.ProvidedGVKs, name)
		assert.Equal(t, bc.SkipRange, bo.SkipRange, name)
		exOld, err := bo.Examples()
		require.NoError(t, err, name)
		exCur, err := bc.Examples()
		require.NoError(t, err, name)
		assert.Equal(t, exCur, exOld, "alm-examples of %s", name)
	}
	assert.GreaterOrEqual(t, compared, 5, "bundles present in both catalogs")
}
