package mirror_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/mirror"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// The files mirror writes are read by programs whose Go types this module cannot import, so
// the tests decode them strictly (unknown fields are errors) into the field lists below,
// written from those programs' sources:
//
//   - oc-mirror v2's ImageSetConfiguration: github.com/openshift/oc-mirror,
//     v2/internal/pkg/api/v2alpha1/type_config.go and type_config_include.go (an internal
//     package, and the Go module proxy serves no version of github.com/openshift/oc-mirror/v2);
//     the parameters are documented at
//     https://docs.redhat.com/en/documentation/openshift_container_platform/4.19/html/disconnected_environments/oc-mirror-imageset-config-parameters-v2_about-installing-oc-mirror-v2
//   - ImageDigestMirrorSet and ImageTagMirrorSet: github.com/openshift/api, config/v1
//     types_image_digest_mirror_set.go and types_image_tag_mirror_set.go (the Go module proxy
//     serves only github.com/openshift/api v3.9.0+incompatible, which has no config/v1);
//     documented at
//     https://docs.redhat.com/en/documentation/openshift_container_platform/4.18/html/config_apis/imagedigestmirrorset-config-openshift-io-v1

// imageSetConfiguration is oc-mirror v2's ImageSetConfiguration (v2alpha1): TypeMeta and the
// spec inline, no metadata. Of the spec, archiveSize and of mirror, platform, helm,
// blockedImages and samples are left out: mirror never writes them, so one written fails.
type imageSetConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	Mirror          struct {
		Operators        []iscOperator `json:"operators,omitempty"`
		AdditionalImages []iscImage    `json:"additionalImages,omitempty"`
	} `json:"mirror"`
}

// iscOperator is v2alpha1.Operator: a catalog and its IncludeConfig (packages) inline.
type iscOperator struct {
	Packages                    []iscPackage `json:"packages"`
	Catalog                     string       `json:"catalog"`
	TargetCatalog               string       `json:"targetCatalog,omitempty"`
	TargetTag                   string       `json:"targetTag,omitempty"`
	Full                        bool         `json:"full,omitempty"`
	SkipDependencies            bool         `json:"skipDependencies,omitempty"`
	TargetCatalogSourceTemplate string       `json:"targetCatalogSourceTemplate,omitempty"`
}

// iscPackage is v2alpha1.IncludePackage, its IncludeBundle (minVersion, maxVersion) inline.
type iscPackage struct {
	Name            string       `json:"name"`
	Channels        []iscChannel `json:"channels,omitempty"`
	SelectedBundles []iscImage   `json:"bundles,omitempty"`
	DefaultChannel  string       `json:"defaultChannel,omitempty"`
	MinVersion      string       `json:"minVersion,omitempty"`
	MaxVersion      string       `json:"maxVersion,omitempty"`
}

// iscChannel is v2alpha1.IncludeChannel, its IncludeBundle inline.
type iscChannel struct {
	Name       string `json:"name"`
	MinVersion string `json:"minVersion,omitempty"`
	MaxVersion string `json:"maxVersion,omitempty"`
}

// iscImage is v2alpha1.Image (and SelectedBundle): a name.
type iscImage struct {
	Name string `json:"name"`
}

// mirrorSet is config.openshift.io/v1 ImageDigestMirrorSet or ImageTagMirrorSet: their specs
// differ by the list's name only (imageDigestMirrors, imageTagMirrors), and so do their
// entries (ImageDigestMirrors, ImageTagMirrors).
type mirrorSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ImageDigestMirrors []mirrorEntry `json:"imageDigestMirrors,omitempty"`
		ImageTagMirrors    []mirrorEntry `json:"imageTagMirrors,omitempty"`
	} `json:"spec"`
	Status struct{} `json:"status,omitzero"`
}

// mirrorEntry is ImageDigestMirrors / ImageTagMirrors.
type mirrorEntry struct {
	Source             string   `json:"source"`
	Mirrors            []string `json:"mirrors,omitempty"`
	MirrorSourcePolicy string   `json:"mirrorSourcePolicy,omitempty"`
}

// The CRDs' validation of an entry's source and of a mirror (openshift/api's kubebuilder
// patterns on ImageDigestMirrors.Source and ImageMirror), and mirrorSourcePolicy's enum.
var (
	sourcePattern  = regexp.MustCompile(`^\*(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+$|^((?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(?::[0-9]+)?)(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?$`)
	mirrorPattern  = regexp.MustCompile(`^((?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(?::[0-9]+)?)(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?$`)
	sourcePolicies = []string{"", "NeverContactSource", "AllowContactingSource"}
)

// goldenRoot holds the golden cases of odlm-render mirror.
const goldenRoot = "../../testdata/mirror"

// goldenCase is what these tests read of testdata/mirror/<case>/case.yaml: its catalogs as
// written, relative to testdata/, "reference:PATH" or "generated:NAME" (catalogPaths
// resolves them).
type goldenCase struct {
	Dir      string
	Catalogs []string `json:"catalogs"`
}

// catalogPaths are the case's catalogs as paths: a reference or generated one resolved
// (golden.ResolveCatalogs: t skips without the reference folder), the others under testdata/.
func (c goldenCase) catalogPaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, p := range golden.ResolveCatalogs(t, c.Catalogs) {
		paths = append(paths, golden.CatalogPath("../../testdata", p))
	}
	return paths
}

// goldenCases lists the golden cases of odlm-render mirror.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(goldenRoot)
	require.NoError(t, err)
	var out []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := goldenCase{Dir: filepath.Join(goldenRoot, e.Name())}
		b, err := os.ReadFile(filepath.Join(c.Dir, "case.yaml"))
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(b, &c), "%s/case.yaml", c.Dir)
		out = append(out, c)
	}
	require.NotEmpty(t, out)
	return out
}

// expected reads a file of a case's expected/ ("" when the case has none).
func (c goldenCase) expected(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "expected", file))
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(b)
}

// decodeISC decodes an ImageSetConfiguration strictly and checks its type and each field
// oc-mirror requires.
func decodeISC(t *testing.T, text string) imageSetConfiguration {
	t.Helper()
	var isc imageSetConfiguration
	require.NoError(t, yaml.UnmarshalStrict([]byte(text), &isc), "imageset-config.yaml")
	assert.Equal(t, "mirror.openshift.io/v2alpha1", isc.APIVersion)
	assert.Equal(t, "ImageSetConfiguration", isc.Kind)
	for _, op := range isc.Mirror.Operators {
		assert.NotEmpty(t, op.Catalog, "mirror.operators[].catalog")
		assertReference(t, op.Catalog)
		assert.NotEmpty(t, op.Packages, "catalog %s: packages", op.Catalog)
		for _, p := range op.Packages {
			assert.NotEmpty(t, p.Name, "catalog %s: a package without a name", op.Catalog)
			// oc-mirror's isInvalidFiltering: channels with a package's min/maxVersion
			assert.False(t, len(p.Channels) > 0 && (p.MinVersion != "" || p.MaxVersion != ""), "package %s: channels and package versions at once", p.Name)
			for _, ch := range p.Channels {
				assert.NotEmpty(t, ch.Name, "package %s: a channel without a name", p.Name)
				for _, v := range []string{ch.MinVersion, ch.MaxVersion} {
					if v != "" {
						_, err := semver.ParseTolerant(v)
						assert.NoError(t, err, "package %s channel %s: version %q", p.Name, ch.Name, v)
					}
				}
			}
		}
	}
	for _, im := range isc.Mirror.AdditionalImages {
		assertReference(t, im.Name)
	}
	return isc
}

// assertReference checks an image reference parses (a tag, a digest, or both).
func assertReference(t *testing.T, image string) {
	t.Helper()
	_, err := name.ParseReference(image)
	assert.NoError(t, err, "image %q", image)
}

// assertFiltersInto checks what oc-mirror's catalog filter checks of an ImageSetConfiguration
// against the catalog it filters (catalog-filter's mirror filter): each listed channel exists,
// a min=max version names a bundle of that channel, and the package's default channel
// survives the filter or the package names another among its listed channels.
func assertFiltersInto(t *testing.T, isc imageSetConfiguration, cats ...*catalog.Catalog) {
	t.Helper()
	for _, op := range isc.Mirror.Operators {
		for _, p := range op.Packages {
			pkg, ok := packageFor(cats, p)
			if !assert.True(t, ok, "package %s is not in the catalogs", p.Name) {
				continue
			}
			var listed []string
			for _, ch := range p.Channels {
				listed = append(listed, ch.Name)
				channel, ok := pkg.Channels[ch.Name]
				if !assert.True(t, ok, "package %s has no channel %s", p.Name, ch.Name) {
					continue
				}
				if ch.MinVersion != "" && ch.MinVersion == ch.MaxVersion {
					assert.True(t, slices.ContainsFunc(channel.Entries, func(e catalog.ChannelEntry) bool {
						return pkg.Bundles[e.Name] != nil && pkg.Bundles[e.Name].Version == ch.MinVersion
					}), "package %s channel %s has no bundle %s", p.Name, ch.Name, ch.MinVersion)
				}
			}
			if p.DefaultChannel != "" {
				assert.Contains(t, listed, p.DefaultChannel, "package %s: defaultChannel must be a listed channel", p.Name)
			} else if len(listed) > 0 {
				assert.Contains(t, listed, pkg.DefaultChannel, "package %s: its default channel %s is filtered out and no other is named", p.Name, pkg.DefaultChannel)
			}
		}
	}
}

// decodeMirrorSets decodes mirror-sets.yaml strictly: an ImageDigestMirrorSet, an
// ImageTagMirrorSet, or both in that order, each entry valid as the CRDs validate it.
func decodeMirrorSets(t *testing.T, text string) (digest, tag []mirrorEntry) {
	t.Helper()
	docs := strings.Split(text, "\n---\n")
	require.LessOrEqual(t, len(docs), 2)
	for i, doc := range docs {
		var set mirrorSet
		require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &set), "mirror-sets.yaml document %d", i)
		assert.Equal(t, "config.openshift.io/v1", set.APIVersion)
		assert.Empty(t, validation.IsDNS1123Subdomain(set.Name), "metadata.name %q", set.Name)
		assert.Empty(t, set.Namespace, "the sets are cluster-scoped")
		switch set.Kind {
		case "ImageDigestMirrorSet":
			require.Empty(t, set.Spec.ImageTagMirrors, "an ImageDigestMirrorSet has no imageTagMirrors")
			require.Nil(t, digest, "one ImageDigestMirrorSet")
			require.Nil(t, tag, "the ImageDigestMirrorSet comes first")
			digest = set.Spec.ImageDigestMirrors
			assertEntries(t, digest)
		case "ImageTagMirrorSet":
			require.Empty(t, set.Spec.ImageDigestMirrors, "an ImageTagMirrorSet has no imageDigestMirrors")
			require.Nil(t, tag, "one ImageTagMirrorSet")
			tag = set.Spec.ImageTagMirrors
			assertEntries(t, tag)
		default:
			require.Fail(t, "unexpected kind", set.Kind)
		}
	}
	return digest, tag
}

// assertEntries checks a set's entries: not empty, each source once and valid, each entry's
// mirrors valid and distinct (listType=set), its policy one of the enum's.
func assertEntries(t *testing.T, entries []mirrorEntry) {
	t.Helper()
	require.NotEmpty(t, entries, "a set is written only with entries")
	seen := map[string]bool{}
	for _, e := range entries {
		assert.Regexp(t, sourcePattern, e.Source)
		assert.False(t, seen[e.Source], "source %s twice", e.Source)
		seen[e.Source] = true
		assert.NotEmpty(t, e.Mirrors, "source %s: no mirror", e.Source)
		mirrors := map[string]bool{}
		for _, m := range e.Mirrors {
			assert.Regexp(t, mirrorPattern, m)
			assert.False(t, mirrors[m], "source %s: mirror %s twice", e.Source, m)
			mirrors[m] = true
		}
		assert.Contains(t, sourcePolicies, e.MirrorSourcePolicy)
	}
}

// TestGoldenFilesDecodeAsTheirReadersDo decodes every golden case's imageset-config.yaml as
// oc-mirror v2 reads it and filters the case's catalogs with it, and every mirror-sets.yaml
// as the API server validates an ImageDigestMirrorSet and an ImageTagMirrorSet.
func TestGoldenFilesDecodeAsTheirReadersDo(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases(t) {
		t.Run(filepath.Base(c.Dir), func(t *testing.T) {
			t.Parallel()
			isc := decodeISC(t, c.expected(t, "imageset-config.yaml"))
			set, err := inputs.LoadCatalogSet(catalog.LoadOptions{RelatedImages: true}, naming.GlobalCatalogNamespace, c.catalogPaths(t), nil)
			require.NoError(t, err)
			var cats []*catalog.Catalog
			if set.Plain != nil {
				cats = append(cats, set.Plain)
			}
			for _, k := range set.NamedKeys() {
				cats = append(cats, set.Named[k])
			}
			assertFiltersInto(t, isc, cats...)
			if sets := c.expected(t, "mirror-sets.yaml"); sets != "" {
				digest, tag := decodeMirrorSets(t, sets)
				assert.NotEmpty(t, append(digest, tag...))
			}
		})
	}
}

// TestMirrorSetsOfEveryShapeAreValid: the mirror sets of images of every shape a catalog
// writes (by tag, by digest, both, without a registry host, of one component, with a port)
// pass the CRDs' validation.
func TestMirrorSetsOfEveryShapeAreValid(t *testing.T) {
	t.Parallel()
	const digest = "@sha256:0123456789012345678901234567890123456789012345678901234567890123"
	var plan mirror.Plan
	for _, image := range []string{
		"quay.io/org/op" + digest, "quay.io/brancz/kube-rbac-proxy:v0.21.0" + digest,
		"docker.io/lib/app:1.0", "localhost:5000/dev/tool:latest", "kubegreen/kube-green:0.3.0",
		"plain", "nvcr.io/nvidia/doca/doca_telemetry" + digest, "registry.example.com:8443/a/b/c:1",
	} {
		plan.Images = append(plan.Images, mirror.Image{Image: image})
	}
	for _, to := range []string{"mirror.example.com", "mirror.example.com:5000/ocp/team", "10.0.0.1:5000/x"} {
		sets, err := plan.MirrorSets(to)
		require.NoError(t, err)
		digest, tag := decodeMirrorSets(t, string(sets))
		assert.Len(t, digest, 3, to)
		assert.Len(t, tag, 5, to)
	}
}

// TestSchemasRefuseWhatTheirReadersRefuse: the decoding above is strict, so a field the
// readers do not know (a metadata on an ImageSetConfiguration, which oc-mirror's type has
// not; a misspelt entry field) fails it.
func TestSchemasRefuseWhatTheirReadersRefuse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		into       any
	}{
		{"metadata on an ImageSetConfiguration", "apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\nmetadata: {name: x}\nmirror: {}\n", &imageSetConfiguration{}},
		{"package-level channel", "mirror:\n  operators:\n  - catalog: x/y:1\n    packages:\n    - {name: p, channel: alpha}\n", &imageSetConfiguration{}},
		{"mirror instead of mirrors", "kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - {source: quay.io/a, mirror: [m.example.com/a]}\n", &mirrorSet{}},
		{"repositoryDigestMirrors (ImageContentSourcePolicy's)", "kind: ImageDigestMirrorSet\nspec:\n  repositoryDigestMirrors: []\n", &mirrorSet{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Error(t, yaml.UnmarshalStrict([]byte(tc.text), tc.into))
		})
	}
	assert.NotRegexp(t, sourcePattern, "quay.io/brancz/kube-rbac-proxy:v0.21.0", "a tag is no part of a source")
	assert.NotRegexp(t, mirrorPattern, "mirror.example.com/Upper", "paths are lower case")
}

// packageFor is the package an ImageSetConfiguration entry filters: the first catalog's (of a
// case with several CatalogSources, one package may be in several) whose package has every
// channel the entry lists.
func packageFor(cats []*catalog.Catalog, p iscPackage) (*catalog.Package, bool) {
	var first *catalog.Package
	for _, c := range cats {
		pkg, ok := c.Package(p.Name)
		if !ok {
			continue
		}
		if first == nil {
			first = pkg
		}
		missing := func(ch iscChannel) bool {
			c := pkg.Channels[ch.Name]
			return c == nil || (ch.MinVersion != "" && ch.MinVersion == ch.MaxVersion && !slices.ContainsFunc(c.Entries, func(e catalog.ChannelEntry) bool {
				return pkg.Bundles[e.Name] != nil && pkg.Bundles[e.Name].Version == ch.MinVersion
			}))
		}
		if !slices.ContainsFunc(p.Channels, missing) {
			return pkg, true
		}
	}
	return first, first != nil
}
