package mirror_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/mirror"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

func load(t *testing.T, paths ...string) *catalog.Catalog {
	t.Helper()
	b := catalog.NewBuilder(catalog.LoadOptions{RelatedImages: true})
	for _, p := range paths {
		require.NoError(t, b.AddPath(p))
	}
	c, err := b.Catalog()
	require.NoError(t, err)
	return c
}

func head(t *testing.T, c *catalog.Catalog, pkg, channel string) *catalog.Bundle {
	t.Helper()
	p, ok := c.Package(pkg)
	require.True(t, ok, pkg)
	b, err := p.HeadBundle(channel)
	require.NoError(t, err)
	return b
}

// TestPlanListsWhatIsInstalledOnce plans two installs of real bundles that share nothing but
// a catalog image, and one that shares kube-green's bundle (a second Subscription of the same
// package elsewhere): each image once, with every install that needs it; the catalog lists
// each package at exactly its installed version.
func TestPlanListsWhatIsInstalledOnce(t *testing.T) {
	t.Parallel()
	c := load(t, "../../testdata/catalogs/community/kube-green", "../../testdata/catalogs/community/nfs-provisioner-operator")
	kg, nfs := head(t, c, "kube-green", "alpha"), head(t, c, "nfs-provisioner-operator", "alpha")
	require.NotEmpty(t, kg.RelatedImages, "the real catalog lists kube-green's relatedImages")
	const index = "registry.example.com/community/index:v4.20"
	plan := mirror.New([]render.Install{
		{Namespace: "kube-green", Name: "kube-green", Package: "kube-green", Channel: "alpha", Bundle: kg, CatalogImage: index},
		{Namespace: "nfs", Name: "nfs", Package: "nfs-provisioner-operator", Channel: "alpha", Bundle: nfs, CatalogImage: index},
		{Namespace: "team", Name: "kube-green", Package: "kube-green", Channel: "alpha", Bundle: kg, CatalogImage: index},
	}, c)
	var images []string
	for _, im := range plan.Images {
		images = append(images, im.Image)
	}
	assert.IsIncreasing(t, images, "sorted, each once")
	assert.Contains(t, images, index)
	assert.Contains(t, images, kg.Image)
	for _, ri := range kg.RelatedImages {
		assert.Contains(t, images, ri.Image)
	}
	for _, im := range plan.Images {
		if im.Image == kg.Image {
			assert.Len(t, im.Needs, 2, "both kube-green Subscriptions need its bundle")
		}
	}
	require.Len(t, plan.Catalogs, 1)
	assert.Equal(t, []mirror.Package{
		{Name: "kube-green", Channel: "alpha", Version: kg.Version, Bundle: kg.Name},
		{Name: "nfs-provisioner-operator", Channel: "alpha", Version: nfs.Version, Bundle: nfs.Name},
	}, plan.Catalogs[0].Packages)
	assert.Empty(t, plan.Additional, "everything comes from the catalog")
	assert.Greater(t, plan.ChannelTotal, len(plan.Images), "whole channels copy more")
	assert.Equal(t, string(plan.ImagesText()), strings.Join(images, "\n")+"\n")
}

// TestPlanWarns covers what the list cannot know: an unknown CatalogSource image (the
// bundle's images become additional images), a bundle without relatedImages, an unknown
// bundle.
func TestPlanWarns(t *testing.T) {
	t.Parallel()
	c := load(t, "../../testdata/catalogs/community/kube-green")
	kg := head(t, c, "kube-green", "alpha")
	bare := *kg
	bare.RelatedImages = nil
	for _, tc := range []struct {
		name    string
		install render.Install
		want    string
	}{
		{"catalog image unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: kg, CatalogSource: "olm/community"}, "CatalogSource olm/community is not among the inputs"},
		{"no relatedImages, contents unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: &bare, CatalogImage: "x/index:1"}, "lists no relatedImages and its contents are not known"},
		{"bundle unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green"}, "does not say which bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan := mirror.New([]render.Install{tc.install}, c)
			require.NotEmpty(t, plan.Warnings)
			assert.Contains(t, plan.Warnings[0].Msg, tc.want)
		})
	}
	plan := mirror.New([]render.Install{{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: kg}}, c)
	assert.Contains(t, plan.Additional, kg.Image, "without a catalog image, the bundle is an additional image")
}

// TestMirrorSets maps each repository to the same path under the mirror: digests in the
// ImageDigestMirrorSet, tags in the ImageTagMirrorSet, the source registry's host dropped.
func TestMirrorSets(t *testing.T) {
	t.Parallel()
	plan := mirror.Plan{Images: []mirror.Image{
		{Image: "quay.io/org/op@sha256:0123456789012345678901234567890123456789012345678901234567890123"},
		{Image: "docker.io/lib/app:1.0"},
		{Image: "localhost:5000/dev/tool:latest"},
		{Image: "plain"},
	}}
	sets, err := plan.MirrorSets("mirror.example.com:5000/prefix")
	require.NoError(t, err)
	text := string(sets)
	for _, want := range []string{
		"kind: ImageDigestMirrorSet", "source: quay.io/org/op", "- mirror.example.com:5000/prefix/org/op",
		"kind: ImageTagMirrorSet", "source: docker.io/lib/app", "- mirror.example.com:5000/prefix/lib/app",
		"source: localhost:5000/dev/tool", "- mirror.example.com:5000/prefix/dev/tool",
		"source: plain", "- mirror.example.com:5000/prefix/plain",
	} {
		assert.Contains(t, text, want)
	}
	_, err = plan.MirrorSets("")
	require.Error(t, err)
}
