package fbc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// TestBundleObjectShapeReadsLikeCSVMetadata loads the same package from a catalog rendered
// the older way (every bundle manifest as an olm.bundle.object property: the CSV, the CRD;
// community-operators-prod catalogs/v4.16) and the newer way (olm.csv.metadata; catalogs/v4.20
// in testdata/catalogs): what rendering reads of each bundle is the same.
func TestBundleObjectShapeReadsLikeCSVMetadata(t *testing.T) {
	old, err := fbc.Load(refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green"))
	require.NoError(t, err)
	cur, err := fbc.Load(refdata.Testdata(t, "catalogs/community/kube-green"))
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
		assert.Equal(t, bc.MinKubeVersion, bo.MinKubeVersion, name)
		assert.NotEmpty(t, bc.MinKubeVersion, name)
		exOld, err := bo.Examples()
		require.NoError(t, err, name)
		exCur, err := bc.Examples()
		require.NoError(t, err, name)
		assert.Equal(t, exCur, exOld, "alm-examples of %s", name)
	}
	assert.GreaterOrEqual(t, compared, 5, "bundles present in both catalogs")
}

// TestBundleObjectContents reads what kube-green's real bundles install: the SleepInfo CRD
// whole, the install strategy's permissions and deployment, the other manifests by
// reference; and a snapshot keeps all of it (write, load, write gives the same bytes).
func TestBundleObjectContents(t *testing.T) {
	c, err := fbc.Load(refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green"))
	require.NoError(t, err)
	p, _ := c.Package("kube-green")
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	require.NotNil(t, head.Contents, "the old shape carries every manifest")
	ct := head.Contents
	require.Len(t, ct.CRDs, 1)
	assert.Equal(t, "sleepinfos.kube-green.com", ct.CRDName(0))
	crd, err := ct.CRD(0)
	require.NoError(t, err)
	assert.Equal(t, "string", manifestPath(crd, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "weekdays", "type"))
	assert.Equal(t, []fbc.CRDRef{{Name: "sleepinfos.kube-green.com", Version: "v1alpha1", Kind: "SleepInfo"}}, ct.OwnedCRDs)
	assert.Equal(t, []string{"kube-green-controller-manager"}, ct.Deployments)
	require.NotEmpty(t, ct.ClusterPermissions)
	assert.NotEmpty(t, ct.ClusterPermissions[0].Rules)
	assert.NotEmpty(t, ct.Objects, "Services, roles… by reference")

	snap := roundTrip(t, c)
	assert.Contains(t, string(snap), "      contents:\n        crds:\n")
	again, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": string(snap)}))
	require.NoError(t, err)
	pa, _ := again.Package("kube-green")
	ha, err := pa.HeadBundle("")
	require.NoError(t, err)
	assert.Equal(t, ct.Deployments, ha.Contents.Deployments)
	assert.Equal(t, ct.ClusterPermissions, ha.Contents.ClusterPermissions)
	crdAgain, err := ha.Contents.CRD(0)
	require.NoError(t, err)
	assert.Equal(t, crd, crdAgain)

	// a bundle of the newer shape has no contents, and its snapshot says nothing of them
	cur, err := fbc.Load(refdata.Testdata(t, "catalogs/community/kube-green"))
	require.NoError(t, err)
	pc, _ := cur.Package("kube-green")
	hc, err := pc.HeadBundle("")
	require.NoError(t, err)
	assert.Nil(t, hc.Contents)
	assert.NotContains(t, string(snapshotOf(t, cur)), "contents:")
}

func manifestPath(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			l, _ := m.([]any)
			if k >= len(l) {
				return nil
			}
			m = l[k]
		}
	}
	return m
}

// TestContentsFromManifests reads the real keycloak-operator 26.7.1 bundle folder (registry+v1,
// YAML files) as a pulled image holds it.
func TestContentsFromManifests(t *testing.T) {
	dir := refdata.Testdata(t, "bundles/keycloak-operator-26.7.1/manifests")
	c, err := fbc.ContentsFromFolder(dir)
	require.NoError(t, err)
	var names []string
	for i := range c.CRDs {
		names = append(names, c.CRDName(i))
	}
	assert.Equal(t, []string{"keycloakoidcclients.k8s.keycloak.org", "keycloakrealmimports.k8s.keycloak.org", "keycloaks.k8s.keycloak.org", "keycloaksamlclients.k8s.keycloak.org"}, names)
	assert.Equal(t, []string{"keycloak-operator"}, c.Deployments)
	assert.NotEmpty(t, c.Permissions)
	assert.Contains(t, c.OwnedCRDs, fbc.CRDRef{Name: "keycloaks.k8s.keycloak.org", Version: "v2beta1", Kind: "Keycloak"})

	_, err = fbc.ContentsFromManifests([]fbc.ManifestFile{{Name: "x.yaml", Data: []byte("kind: [")}})
	assert.ErrorContains(t, err, "x.yaml: document 1")
	crdOnly, err := os.ReadFile(filepath.Join(dir, "keycloaks.k8s.keycloak.org-v1.crd.yml"))
	require.NoError(t, err)
	_, err = fbc.ContentsFromManifests([]fbc.ManifestFile{{Name: "crd.yml", Data: crdOnly}})
	assert.ErrorContains(t, err, "no ClusterServiceVersion")
	_, err = fbc.ContentsFromFolder(t.TempDir())
	assert.ErrorContains(t, err, "no ClusterServiceVersion")
}

// TestAllContentsKeepsEveryBundles: by default only the channel heads keep their contents;
// LoadOptions.AllContents keeps every bundle's that carries them (odlm-render plan checks
// each hop's CRDs), readable like the head's.
func TestAllContentsKeepsEveryBundles(t *testing.T) {
	t.Parallel()
	dir := refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green")
	for _, tc := range []struct {
		name string
		all  bool
	}{{"heads only", false}, {"every bundle", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := fbc.LoadWith(fbc.LoadOptions{AllContents: tc.all}, dir)
			require.NoError(t, err)
			p, _ := c.Package("kube-green")
			head, err := p.HeadBundle("")
			require.NoError(t, err)
			require.NotNil(t, head.Contents)
			older := p.Bundles["kube-green.v0.7.0"]
			require.NotNil(t, older)
			if !tc.all {
				assert.Nil(t, older.Contents)
				return
			}
			require.NotNil(t, older.Contents)
			require.Len(t, older.Contents.CRDs, 1)
			crd, err := older.Contents.CRD(0)
			require.NoError(t, err)
			assert.Equal(t, "sleepinfos.kube-green.com", manifestPath(crd, "metadata", "name"))
		})
	}
}
