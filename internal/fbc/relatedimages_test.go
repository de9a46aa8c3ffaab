package fbc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// withRelatedImages is the bundle blob of bundleYAML("p", "p.v1", "1.0.0", "") with the
// text relatedImages (a YAML field, or "" for none) in place of its relatedImages.
func withRelatedImages(field string) string {
	b := bundleYAML("p", "p.v1", "1.0.0", "")
	return strings.Replace(b, "relatedImages:\n- name: operator\n  image: quay.io/example/operator:1.0.0\n", field, 1)
}

// loadOne loads text as one file, with or without related images.
func loadOne(t *testing.T, name, text string, relatedImages bool) *fbc.Catalog {
	t.Helper()
	c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: relatedImages}, writeTree(t, map[string]string{name: text}))
	require.NoError(t, err)
	return c
}

// bundleOf is the named bundle of the named package.
func bundleOf(t *testing.T, c *fbc.Catalog, pkg, name string) *fbc.Bundle {
	t.Helper()
	p, ok := c.Package(pkg)
	require.True(t, ok, pkg)
	b, ok := p.Bundles[name]
	require.True(t, ok, name)
	return b
}

// TestRelatedImagesRoundTrip: what a catalog lists as a bundle's relatedImages is what the
// FBC loader gives, what the snapshot writes (one element a line, in the catalog's order),
// and what the snapshot reader gives back; without LoadOptions.RelatedImages both readers
// drop them.
func TestRelatedImagesRoundTrip(t *testing.T) {
	t.Parallel()
	digest := "quay.io/example/operator@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0"
	tests := []struct {
		name    string
		field   string // the bundle's relatedImages in FBC
		want    []fbc.RelatedImage
		written string // the snapshot's relatedImages
	}{
		{name: "listed", field: "relatedImages:\n- {name: operator, image: 'quay.io/example/operator:1.0.0'}\n- {name: '', image: " + digest + "}\n",
			want:    []fbc.RelatedImage{{Name: "operator", Image: "quay.io/example/operator:1.0.0"}, {Image: digest}},
			written: "      relatedImages:\n      - {name: operator, image: 'quay.io/example/operator:1.0.0'}\n      - {image: '" + digest + "'}\n"},
		{name: "catalog order kept, duplicates too", field: "relatedImages:\n- {name: z, image: z.io/b:1}\n- {name: a, image: a.io/a:1}\n- {name: '', image: a.io/a:1}\n",
			want:    []fbc.RelatedImage{{Name: "z", Image: "z.io/b:1"}, {Name: "a", Image: "a.io/a:1"}, {Image: "a.io/a:1"}},
			written: "      relatedImages:\n      - {name: z, image: 'z.io/b:1'}\n      - {name: a, image: 'a.io/a:1'}\n      - {image: 'a.io/a:1'}\n"},
		{name: "absent", field: "", written: "      relatedImages: []\n"},
		{name: "empty", field: "relatedImages: []\n", written: "      relatedImages: []\n"},
		{name: "null", field: "relatedImages: null\n", written: "      relatedImages: []\n"},
		{name: "no image, strings YAML reads otherwise", field: "relatedImages:\n- {name: 'yes'}\n- {name: '#x', image: '- x: y'}\n- {}\n",
			want:    []fbc.RelatedImage{{Name: "yes"}, {Name: "#x", Image: "- x: y"}, {}},
			written: "      relatedImages:\n      - {name: yes}\n      - {name: '#x', image: '- x: y'}\n      - {}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := pkgYAML("p", "stable") + channelYAML("p", "stable", "name: p.v1") + withRelatedImages(tc.field)
			c := loadOne(t, "c.yaml", text, true)
			b := bundleOf(t, c, "p", "p.v1")
			assert.Equal(t, tc.want, b.RelatedImages)
			assert.True(t, b.RelatedImagesKnown, "an olm.bundle blob says what the catalog lists")

			snap := roundTrip(t, c)
			assert.True(t, strings.HasSuffix(string(snap), "        value: \"4.20\"\n"+tc.written), "after the bundle's other fields:\n%s", snap)
			back := bundleOf(t, loadOne(t, "s.yaml", string(snap), true), "p", "p.v1")
			assert.Equal(t, tc.want, back.RelatedImages)
			assert.True(t, back.RelatedImagesKnown)

			for name, file := range map[string]string{"FBC": text, "snapshot": string(snap)} {
				dropped := bundleOf(t, loadOne(t, "c.yaml", file, false), "p", "p.v1")
				assert.Nil(t, dropped.RelatedImages, name)
				assert.False(t, dropped.RelatedImagesKnown, name)
			}
		})
	}
}

// TestRelatedImagesNotKept: a catalog loaded without related images writes a snapshot
// without them, which reads back as "not kept", as a snapshot written before they were
// kept does.
func TestRelatedImagesNotKept(t *testing.T) {
	t.Parallel()
	c := loadOne(t, "c.yaml", simpleCatalog("foo"), false)
	snap := roundTrip(t, c)
	assert.NotContains(t, string(snap), "relatedImages")
	back := bundleOf(t, loadOne(t, "s.yaml", string(snap), true), "foo", "foo.v1.2.0")
	assert.Nil(t, back.RelatedImages)
	assert.False(t, back.RelatedImagesKnown)
}

// TestRelatedImagesRealCatalogs: the FBC loader and the snapshot reader give the same
// related images for every bundle of the real catalogs, in both renderings (olm.csv.metadata
// and olm.bundle.object).
func TestRelatedImagesRealCatalogs(t *testing.T) {
	t.Parallel()
	kubeGreen := []fbc.RelatedImage{{Image: "docker.io/kubegreen/kube-green:0.7.1"},
		{Image: "quay.io/community-operator-pipeline-prod/kube-green@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0"}}
	tests := []struct {
		dir      string   // a folder of the reference folder's copy of testdata
		packages []string // each bundle of these lists related images
		head     string   // a kube-green bundle and its related images
		want     []fbc.RelatedImage
	}{
		{dir: "catalogs", packages: []string{"kube-green", "nfs-provisioner-operator", "ecr-secret-operator"}, head: "kube-green.v0.7.1", want: kubeGreen},
		{dir: "catalogs-bundle-object", packages: []string{"kube-green", "ecr-secret-operator"}},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			fbc, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, refdata.Testdata(t, tc.dir))
			require.NoError(t, err)
			snap := roundTrip(t, fbc)
			back := loadOne(t, "s.yaml", string(snap), true)
			for _, pn := range fbc.PackageNames() {
				p, _ := fbc.Package(pn)
				for _, bn := range p.BundleNames() {
					want, got := p.Bundles[bn], bundleOf(t, back, pn, bn)
					assert.True(t, got.RelatedImagesKnown, bn)
					assert.Equal(t, want.RelatedImages, got.RelatedImages, bn)
				}
			}
			for _, pn := range tc.packages {
				p, _ := fbc.Package(pn)
				for _, b := range p.Bundles {
					assert.NotEmpty(t, b.RelatedImages, b.Name)
				}
			}
			if tc.head != "" {
				assert.Equal(t, tc.want, bundleOf(t, back, "kube-green", tc.head).RelatedImages)
			}
		})
	}
}

// TestRelatedImagesOldSnapshot: a real snapshot written before related images were kept
// loads, its bundles' related images unknown (extract it again to have them).
func TestRelatedImagesOldSnapshot(t *testing.T) {
	t.Parallel()
	old := refdata.Testdata(t, "render/crd-prune-names-the-alm-example/catalog/ibm-commonui-operator-app.snapshot.yaml")
	c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, old)
	require.NoError(t, err)
	n := 0
	for _, pn := range c.PackageNames() {
		p, _ := c.Package(pn)
		for _, b := range p.Bundles {
			assert.False(t, b.RelatedImagesKnown, b.Name)
			assert.Nil(t, b.RelatedImages, b.Name)
			n++
		}
	}
	assert.Positive(t, n)
	assert.NotContains(t, string(snapshotOf(t, c)), "relatedImages", "written again, they are still unknown")
}

// TestRelatedImagesSnapshotErrors: a snapshot's relatedImages are read strictly, whether the
// load keeps them or not; the error names the bundle and the element.
func TestRelatedImagesSnapshotErrors(t *testing.T) {
	t.Parallel()
	c := loadOne(t, "c.yaml", simpleCatalog("foo"), true)
	snap := string(snapshotOf(t, c))
	line := "      relatedImages:\n      - {name: operator, image: 'quay.io/example/operator:1.0.0'}\n"
	require.Contains(t, snap, line)
	tests := []struct {
		name, new string
		want      []string
	}{
		{"unknown field", "      relatedImages:\n      - {name: operator, image: x, digest: sha256:0}\n",
			[]string{`bundle "foo.v1.0.0"`, `relatedImages: element 0: unknown field "digest" (fields: name, image)`}},
		{"not a list", "      relatedImages: {name: operator}\n", []string{`bundle "foo.v1.0.0"`, `relatedImages: field "relatedImages": expected a list, got a mapping`}},
		{"element not a mapping", "      relatedImages:\n      - quay.io/example/operator:1.0.0\n",
			[]string{`bundle "foo.v1.0.0"`, `field "relatedImages" element 0: expected a mapping, got a string`}},
		{"image not a string", "      relatedImages:\n      - {image: [x]}\n", []string{`bundle "foo.v1.0.0"`, `relatedImages: element 0: field "image": expected a string, got a list`}},
		{"misspelt", "      relatedImage: []\n", []string{`bundle "foo.v1.0.0"`, `unknown field "relatedImage"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bad := strings.Replace(snap, line, tc.new, 1)
			for _, keep := range []bool{true, false} {
				_, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: keep}, writeTree(t, map[string]string{"s.yaml": bad}))
				require.Error(t, err)
				for _, w := range tc.want {
					assert.ErrorContains(t, err, w)
				}
			}
		})
	}
}
