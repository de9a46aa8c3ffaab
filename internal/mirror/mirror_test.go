package mirror_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/mirror"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

func load(t *testing.T, paths ...string) *catalog.Catalog {
	t.Helper()
	b := fbc.NewBuilder(catalog.LoadOptions{RelatedImages: true})
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
	c := load(t, refdata.Testdata(t, "catalogs/community/kube-green"), refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator"))
	kg, nfs := head(t, c, "kube-green", "alpha"), head(t, c, "nfs-provisioner-operator", "alpha")
	require.NotEmpty(t, kg.RelatedImages, "the real catalog lists kube-green's relatedImages")
	const index = "registry.example.com/community/index:v4.20"
	plan := mirror.New([]render.Install{
		{Namespace: "kube-green", Name: "kube-green", Package: "kube-green", Channel: "alpha", Bundle: kg, CatalogImage: index},
		{Namespace: "nfs", Name: "nfs", Package: "nfs-provisioner-operator", Channel: "alpha", Bundle: nfs, CatalogImage: index},
		{Namespace: "team", Name: "kube-green", Package: "kube-green", Channel: "alpha", Bundle: kg, CatalogImage: index},
	}, catalog.Set{Plain: c})
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
		{Name: "kube-green", Channel: "alpha", Version: kg.Version, Bundle: kg.Name, DefaultChannel: "alpha"},
		{Name: "nfs-provisioner-operator", Channel: "alpha", Version: nfs.Version, Bundle: nfs.Name, DefaultChannel: "alpha"},
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
	c := load(t, refdata.Testdata(t, "catalogs/community/kube-green"))
	kg := head(t, c, "kube-green", "alpha")
	bare := *kg
	bare.RelatedImages = nil
	notKept := bare
	notKept.RelatedImagesKnown = false
	for _, tc := range []struct {
		name    string
		install render.Install
		want    string
	}{
		{"catalog image unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: kg, CatalogSource: "olm/community"}, "CatalogSource olm/community is not among the inputs"},
		{"no relatedImages, contents unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: &bare, CatalogImage: "x/index:1"}, "lists no relatedImages and its contents are not known"},
		{"relatedImages not kept by an older snapshot", render.Install{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: &notKept, CatalogImage: "x/index:1"},
			"bundle kube-green.v0.7.1: the catalog snapshot does not keep its relatedImages (written before catalog extract kept them: extract it again) and its contents are not known"},
		{"bundle unknown", render.Install{Namespace: "a", Name: "kg", Package: "kube-green"}, "does not say which bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan := mirror.New([]render.Install{tc.install}, catalog.Set{Plain: c})
			require.NotEmpty(t, plan.Warnings)
			assert.Contains(t, plan.Warnings[0].Msg, tc.want)
		})
	}
	plan := mirror.New([]render.Install{{Namespace: "a", Name: "kg", Package: "kube-green", Bundle: kg}}, catalog.Set{Plain: c})
	assert.Contains(t, plan.Additional, kg.Image, "without a catalog image, the bundle is an additional image")
}

// TestMirrorSets maps each repository to the same path under the mirror: digests in the
// ImageDigestMirrorSet, tags in the ImageTagMirrorSet, the source registry's host dropped.
// A source is the repository a cluster matches: without the tag of a "repo:tag@digest"
// reference (real catalogs list some: ecr-secret-operator, shipwright-operator), and with
// Docker Hub's host and library/ namespace for a name that has none, as container runtimes
// read it.
func TestMirrorSets(t *testing.T) {
	t.Parallel()
	const digest = "sha256:0123456789012345678901234567890123456789012345678901234567890123"
	const to = "mirror.example.com:5000/prefix"
	for _, tc := range []struct {
		image, kind, source, mirror string
	}{
		{"quay.io/org/op@" + digest, "ImageDigestMirrorSet", "quay.io/org/op", to + "/org/op"},
		{"quay.io/brancz/kube-rbac-proxy:v0.21.0@" + digest, "ImageDigestMirrorSet", "quay.io/brancz/kube-rbac-proxy", to + "/brancz/kube-rbac-proxy"},
		{"docker.io/lib/app:1.0", "ImageTagMirrorSet", "docker.io/lib/app", to + "/lib/app"},
		{"localhost:5000/dev/tool:latest", "ImageTagMirrorSet", "localhost:5000/dev/tool", to + "/dev/tool"},
		{"localhost/dev/tool:1", "ImageTagMirrorSet", "localhost/dev/tool", to + "/dev/tool"},
		{"kubegreen/kube-green:0.3.0", "ImageTagMirrorSet", "docker.io/kubegreen/kube-green", to + "/kubegreen/kube-green"},
		{"plain", "ImageTagMirrorSet", "docker.io/library/plain", to + "/library/plain"},
		{"docker.io/busybox@" + digest, "ImageDigestMirrorSet", "docker.io/library/busybox", to + "/library/busybox"},
	} {
		t.Run(tc.image, func(t *testing.T) {
			t.Parallel()
			plan := mirror.Plan{Images: []mirror.Image{{Image: tc.image}}}
			sets, err := plan.MirrorSets(to + "/")
			require.NoError(t, err)
			want := "kind: " + tc.kind + "\nmetadata:\n  name: odlm-render-mirror\nspec:\n  " +
				map[string]string{"ImageDigestMirrorSet": "imageDigestMirrors", "ImageTagMirrorSet": "imageTagMirrors"}[tc.kind] +
				":\n  - mirrors:\n    - " + tc.mirror + "\n    source: " + tc.source + "\n"
			assert.Contains(t, string(sets), want)
			assert.NotContains(t, string(sets), "---", "one set only")
		})
	}
	_, err := mirror.Plan{}.MirrorSets("")
	require.Error(t, err)
}

// TestImageSetConfigurationListsAChannelOnce: a Subscription on the package's default
// channel by name and one with channel "" (the default channel) install the same bundle from
// the same channel, which the ImageSetConfiguration lists once; another channel of the same
// package is listed beside it.
func TestImageSetConfigurationListsAChannelOnce(t *testing.T) {
	t.Parallel()
	c := load(t, refdata.Testdata(t, "catalogs/certified/eda-openshift-operator"))
	latest, older := head(t, c, "eda-k8s-operator", "6.0"), head(t, c, "eda-k8s-operator", "stable")
	const index = "registry.redhat.io/redhat/certified-operator-index:v4.20"
	plan := mirror.New([]render.Install{
		{Namespace: "a", Name: "eda", Package: "eda-k8s-operator", Channel: "6.0", Bundle: latest, CatalogImage: index},
		{Namespace: "b", Name: "eda", Package: "eda-k8s-operator", Bundle: latest, CatalogImage: index},
		{Namespace: "c", Name: "eda", Package: "eda-k8s-operator", Channel: "stable", Bundle: older, CatalogImage: index},
	}, catalog.Set{Plain: c})
	require.Len(t, plan.Catalogs, 1)
	assert.Equal(t, []mirror.Package{
		{Name: "eda-k8s-operator", Channel: "6.0", Version: "6.0.1", Bundle: "eda-openshift-operator.v6.0.1", DefaultChannel: "6.0"},
		{Name: "eda-k8s-operator", Channel: "stable", Version: "6.0.0", Bundle: "eda-openshift-operator.v6.0.0", DefaultChannel: "6.0"},
	}, plan.Catalogs[0].Packages)
	isc, err := plan.ImageSetConfiguration()
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  operators:
  - catalog: registry.redhat.io/redhat/certified-operator-index:v4.20
    packages:
    - channels:
      - maxVersion: 6.0.1
        minVersion: 6.0.1
        name: "6.0"
      - maxVersion: 6.0.0
        minVersion: 6.0.0
        name: stable
      name: eda-k8s-operator
`, string(isc))
}

// TestImageSetConfigurationNamesADefaultChannel: oc-mirror v2 filters a catalog with the
// packages and channels listed, and refuses a package whose default channel is filtered out
// unless the package names a new one ("the default channel %q was filtered out, a new default
// channel must be configured for this package": catalog-filter's mirror filter, which
// oc-mirror v2's catalog_handler.go calls with the package's defaultChannel). A package
// installed only from channels other than its default one names the first of them.
func TestImageSetConfigurationNamesADefaultChannel(t *testing.T) {
	t.Parallel()
	c := load(t, refdata.Testdata(t, "catalogs/certified/eda-openshift-operator"), refdata.Testdata(t, "catalogs/community/kube-green"))
	older, kg := head(t, c, "eda-k8s-operator", "stable"), head(t, c, "kube-green", "alpha")
	const index = "registry.redhat.io/redhat/certified-operator-index:v4.20"
	plan := mirror.New([]render.Install{
		{Namespace: "a", Name: "eda", Package: "eda-k8s-operator", Channel: "stable", Bundle: older, CatalogImage: index},
		{Namespace: "a", Name: "kube-green", Package: "kube-green", Channel: "alpha", Bundle: kg, CatalogImage: index},
	}, catalog.Set{Plain: c})
	isc, err := plan.ImageSetConfiguration()
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  operators:
  - catalog: registry.redhat.io/redhat/certified-operator-index:v4.20
    packages:
    - channels:
      - maxVersion: 6.0.0
        minVersion: 6.0.0
        name: stable
      defaultChannel: stable
      name: eda-k8s-operator
    - channels:
      - maxVersion: 0.7.1
        minVersion: 0.7.1
        name: alpha
      name: kube-green
`, string(isc), "kube-green's channel is its default channel")
}

// TestWholeChannelCountsWhatTheInstallNeeds: a bundle without relatedImages whose contents are
// known lists its Deployments' container images, and mirroring its whole channel copies them
// too: the summary's channel figure counts every bundle of the channel with its
// relatedImages, the catalog image and the install's own images, never fewer than the install.
func TestWholeChannelCountsWhatTheInstallNeeds(t *testing.T) {
	t.Parallel()
	c := load(t, refdata.Testdata(t, "catalogs/community/kube-green"))
	bare := *head(t, c, "kube-green", "alpha")
	bare.RelatedImages = nil
	bare.Contents = &catalog.Contents{Install: &catalog.Install{Deployments: []catalog.InstallDeployment{{Name: "manager",
		Spec: json.RawMessage(`{"template":{"spec":{"initContainers":[{"name":"init","image":"example.com/team/init:1"}],"containers":[{"name":"manager","image":"example.com/team/manager:1"}]}}}`)}}}}
	const index = "x/index:1"
	plan := mirror.New([]render.Install{{Namespace: "a", Name: "kg", Package: "kube-green", Channel: "alpha", Bundle: &bare, CatalogImage: index}}, catalog.Set{Plain: c})
	// the bundle's own image too: its relatedImages do not list it, so oc-mirror's catalog
	// filtering would not copy it
	assert.Equal(t, []string{"example.com/team/init:1", "example.com/team/manager:1", bare.Image}, plan.Additional)
	require.Len(t, plan.Operators, 1)
	o := plan.Operators[0]
	assert.Equal(t, 4, o.Images, "catalog, bundle and two container images")
	channel := map[string]bool{index: true, "example.com/team/init:1": true, "example.com/team/manager:1": true}
	p, _ := c.Package("kube-green")
	for _, e := range p.Channels["alpha"].Entries {
		channel[p.Bundles[e.Name].Image] = true
		for _, ri := range p.Bundles[e.Name].RelatedImages {
			channel[ri.Image] = true
		}
	}
	require.True(t, o.ChannelImagesKnown)
	assert.Equal(t, len(channel), o.ChannelImages)
	assert.Equal(t, len(channel), plan.ChannelTotal)
}

// TestImagesMustBeImageReferences: a catalog's image strings that are not image references (a
// newline, an option, a path) are errors naming the bundle, and never reach images.txt, the
// ImageSetConfiguration or the mirror sets.
func TestImagesMustBeImageReferences(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"-rf", "--dest-tls-verify=false", "../../etc/passwd", "/abs/path", "quay.io/a/b:v1\nquay.io/evil/x:v1", "quay.io/a/b:v1 --insecure", "QUAY.io/UPPER/case:v1", "quay.io/a/b/:v1"} {
		t.Run(bad, func(t *testing.T) {
			t.Parallel()
			b := &catalog.Bundle{Name: "x.v1", Package: "x", Version: "1.0.0", Image: "quay.io/example/x-bundle:v1",
				RelatedImages: []catalog.RelatedImage{{Name: "manager", Image: bad}}, RelatedImagesKnown: true}
			for _, in := range []render.Install{
				{Namespace: "ns", Name: "x", Package: "x", Bundle: b, CatalogImage: "quay.io/example/catalog:v1"},
				{Namespace: "ns", Name: "x", Package: "x", Bundle: &catalog.Bundle{Name: "x.v1", Package: "x", Image: bad}, CatalogImage: bad},
			} {
				plan := mirror.New([]render.Install{in}, catalog.Set{})
				require.NotEmpty(t, plan.Errors)
				assert.Contains(t, plan.Errors[0].Msg, "is not an image reference")
				assert.NotContains(t, string(plan.ImagesText()), bad)
				isc, err := plan.ImageSetConfiguration()
				require.NoError(t, err)
				assert.NotContains(t, string(isc), bad)
				sets, err := plan.MirrorSets("mirror.example.com")
				require.NoError(t, err)
				assert.NotContains(t, string(sets), bad)
			}
		})
	}
}

// TestMirrorSetsOfEveryAcceptedReference: whatever image reference mirror accepts (ports,
// digests, nested paths, separators, Docker Hub's short names), the mirror sets it writes pass
// OpenShift's validation of ImageDigestMirrorSet and ImageTagMirrorSet sources and mirrors:
// one bad entry would break the whole set.
func TestMirrorSetsOfEveryAcceptedReference(t *testing.T) {
	t.Parallel()
	digest := "@sha256:" + strings.Repeat("ab", 32)
	var related []catalog.RelatedImage
	for i, image := range []string{"busybox", "library/busybox:1.36", "localhost:5000/a/b:v1", "registry.example.com:8443/team/sub_path/x-y__z:v1.2" + digest,
		"quay.io/a/b" + digest, "docker.io/user/app:latest", "ghcr.io/org/repo.name/tool:v1", "10.0.0.1:5000/ns/img:tag"} {
		related = append(related, catalog.RelatedImage{Name: fmt.Sprint("r", i), Image: image})
	}
	b := &catalog.Bundle{Name: "x.v1", Package: "x", Version: "1.0.0", Image: "quay.io/example/x-bundle:v1", RelatedImages: related, RelatedImagesKnown: true}
	plan := mirror.New([]render.Install{{Namespace: "ns", Name: "x", Package: "x", Bundle: b, CatalogImage: "quay.io/example/catalog:v1"}}, catalog.Set{})
	require.Empty(t, plan.Errors)
	sets, err := plan.MirrorSets("mirror.example.com:5000/prefix")
	require.NoError(t, err)
	digestSet, tagSet := decodeMirrorSets(t, string(sets))
	assert.NotEmpty(t, digestSet)
	assert.NotEmpty(t, tagSet)
}
