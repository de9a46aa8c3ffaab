// Package examples holds the tests of the examples' catalogs (examples/quickstart/catalog, and
// its copy examples/argocd/catalog): FBC the project wrote for the examples, modelled on the
// kube-green and nfs-provisioner-operator packages of the community operator catalog for
// OpenShift. They check that the catalogs load as valid FBC with this project's loader and
// form a sound upgrade graph, that the Argo CD example's copy is the quickstart's, and, when
// the reference data is present (internal/refdata), that every bundle they keep says what the
// real catalog's bundle of that name says and that each example renders the same against them
// as against the real catalog entries, object for object, with the options the examples use.
package examples

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

const (
	examplesDir = "../../examples"
	// quickstartCatalog is the catalog every example reads (kustomize and kpt by path).
	quickstartCatalog = examplesDir + "/quickstart/catalog"
	// argoCDCatalog is the Argo CD example's copy, inside its application's repository.
	argoCDCatalog = examplesDir + "/argocd/catalog"
)

// packages are the example catalogs' packages, each with the head of its default channel,
// which is the head of the real package's channel.
var packages = map[string]string{
	"kube-green":               "kube-green.v0.7.1",
	"nfs-provisioner-operator": "nfs-provisioner-operator.v0.0.9",
}

// exampleCatalogs are the example catalog folders.
var exampleCatalogs = []string{quickstartCatalog, argoCDCatalog}

func load(t *testing.T, paths ...string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.LoadWith(catalog.LoadOptions{RelatedImages: true}, paths...)
	require.NoError(t, err)
	return c
}

func TestCatalogsAreValidFBC(t *testing.T) {
	t.Parallel()
	for _, dir := range exampleCatalogs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			t.Parallel()
			c := load(t, dir)
			assert.Empty(t, fbc.IgnoredBlobs(c), "only the schemas a render reads")
			assert.Equal(t, slices.Sorted(maps.Keys(packages)), c.PackageNames())
			for name, head := range packages {
				p, ok := c.Package(name)
				require.True(t, ok, name)
				checkPackage(t, p, head)
			}
		})
	}
}

// checkPackage checks what opm validate would of one package, and what the examples need.
func checkPackage(t *testing.T, p *catalog.Package, wantHead string) {
	t.Helper()
	assert.NotEmpty(t, p.Description, "%s: the olm.package says what the operator does", p.Name)
	require.Contains(t, p.Channels, p.DefaultChannel, "%s: the default channel exists", p.Name)
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	assert.Equal(t, wantHead, head.Name, "%s: the head of the real package's channel", p.Name)

	inChannel := map[string]bool{}
	for _, ch := range p.Channels {
		_, err := ch.Head()
		require.NoError(t, err, "%s channel %s has one head", p.Name, ch.Name)
		for i, e := range ch.Entries {
			b, ok := p.Bundles[e.Name]
			require.True(t, ok, "%s channel %s: entry %s has an olm.bundle", p.Name, ch.Name, e.Name)
			inChannel[e.Name] = true
			if i == 0 {
				assert.Empty(t, e.Replaces, "%s channel %s: its tail replaces nothing the catalog lacks", p.Name, ch.Name)
				continue
			}
			// entries run from the oldest to the head, each replacing the one before, an
			// older version
			prev := ch.Entries[i-1].Name
			assert.Equal(t, prev, e.Replaces, "%s channel %s: %s", p.Name, ch.Name, e.Name)
			assert.True(t, version(t, b).GT(version(t, p.Bundles[prev])), "%s is newer than %s, which it replaces", e.Name, prev)
		}
	}
	for _, name := range p.BundleNames() {
		b := p.Bundles[name]
		assert.True(t, inChannel[name], "%s is in a channel", name)
		checkBundle(t, b)
	}
}

// checkBundle checks the properties a render reads from a bundle.
func checkBundle(t *testing.T, b *catalog.Bundle) {
	t.Helper()
	assert.Equal(t, b.Package+".v"+version(t, b).String(), b.Name, "the CSV name is the package and its olm.package version")
	assert.NotEmpty(t, b.DisplayName, b.Name)
	assert.True(t, strings.Contains(b.Image, "@sha256:"), "%s: the bundle image by digest", b.Name)
	require.True(t, b.RelatedImagesKnown, b.Name)
	assert.True(t, slices.ContainsFunc(b.RelatedImages, func(r catalog.RelatedImage) bool { return r.Image == b.Image }),
		"%s: the related images list the bundle image, as opm render writes them", b.Name)
	if b.MinKubeVersion != "" {
		_, err := semver.Parse(b.MinKubeVersion)
		assert.NoError(t, err, "%s minKubeVersion", b.Name)
	}

	require.Len(t, b.InstallModes, 4, "%s: the CSV says which of the four install modes it supports", b.Name)
	var modes []string
	for _, m := range b.InstallModes {
		modes = append(modes, string(m.Type))
	}
	assert.ElementsMatch(t, []string{"OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"}, modes, b.Name)

	require.NotEmpty(t, b.ProvidedGVKs, b.Name)
	examples, err := b.Examples()
	require.NoError(t, err)
	require.NotEmpty(t, examples, "%s: alm-examples, which the OperandConfig specs are merged into", b.Name)
	for _, ex := range examples {
		apiVersion, _ := ex["apiVersion"].(string)
		kind, _ := ex["kind"].(string)
		group, ver, found := strings.Cut(apiVersion, "/")
		if !found {
			group, ver = "", apiVersion
		}
		assert.Contains(t, b.ProvidedGVKs, catalog.GVK{Group: group, Version: ver, Kind: kind},
			"%s: its alm-example %s is of a kind it provides", b.Name, kind)
	}
}

func version(t *testing.T, b *catalog.Bundle) semver.Version {
	t.Helper()
	v, err := semver.Parse(b.Version)
	require.NoError(t, err, "%s: olm.package version", b.Name)
	return v
}

// TestCatalogsSayTheProjectWroteThem: each catalog file opens with the comment saying that
// the project wrote it for the examples and which real package it models.
func TestCatalogsSayTheProjectWroteThem(t *testing.T) {
	t.Parallel()
	for _, dir := range exampleCatalogs {
		for rel, text := range testtools.TreeFiles(t, dir) {
			header, _, _ := strings.Cut(text, "\nschema:")
			assert.Contains(t, header, "Written by the odlm-render project for its examples", "%s/%s", dir, rel)
			assert.Contains(t, header, "It models the ", "%s/%s names the real package", dir, rel)
		}
	}
}

// TestArgoCDCatalogIsTheQuickstarts: the Argo CD example holds a copy (its application's
// repository is streamed to the plugin, which reads paths inside it only), kept identical.
func TestArgoCDCatalogIsTheQuickstarts(t *testing.T) {
	t.Parallel()
	want, got := testtools.TreeFiles(t, quickstartCatalog), testtools.TreeFiles(t, argoCDCatalog)
	assert.Equal(t, want, got, "cp -r examples/quickstart/catalog/. examples/argocd/catalog/")
}

// TestCatalogsSayWhatTheRealPackagesSay compares each example package with the real one
// (the community catalog as the project's testdata held it, in the reference folder): the
// same default channel and heads, the same bundle for every bundle kept (version, image,
// kinds, install modes, minKubeVersion, related images, the other properties and OLM
// annotations, alm-examples as parsed JSON), and channel entries whose edges are the real
// ones, but for the replaces of a tail whose predecessor the example leaves out.
func TestCatalogsSayWhatTheRealPackagesSay(t *testing.T) {
	t.Parallel()
	example := load(t, quickstartCatalog)
	for name := range packages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ref := load(t, refdata.Testdata(t, "catalogs/community/"+name))
			rp, ok := ref.Package(name)
			require.True(t, ok)
			ep, _ := example.Package(name)
			assert.Equal(t, rp.DefaultChannel, ep.DefaultChannel)
			assert.Equal(t, rp.ChannelNames(), ep.ChannelNames(), "the real package's channels")
			for _, chName := range ep.ChannelNames() {
				ech, rch := ep.Channels[chName], rp.Channels[chName]
				eh, err := ech.Head()
				require.NoError(t, err)
				rh, err := rch.Head()
				require.NoError(t, err)
				assert.Equal(t, rh, eh, "channel %s: the real head", chName)
				for _, e := range ech.Entries {
					i := slices.IndexFunc(rch.Entries, func(r catalog.ChannelEntry) bool { return r.Name == e.Name })
					require.GreaterOrEqual(t, i, 0, "channel %s: %s is in the real channel", chName, e.Name)
					want := rch.Entries[i]
					if _, kept := ep.Bundles[want.Replaces]; !kept {
						want.Replaces = ""
					}
					assert.Equal(t, want, e, "channel %s: the real entry's edges", chName)
				}
			}
			for _, bn := range ep.BundleNames() {
				rb, ok := rp.Bundles[bn]
				require.True(t, ok, "%s is a real bundle", bn)
				assert.Equal(t, facts(t, rb), facts(t, ep.Bundles[bn]), bn)
			}
		})
	}
}

// bundleFacts is what a bundle says, without where it was read and with alm-examples parsed
// (the example writes the JSON its own way).
type bundleFacts struct {
	Bundle   catalog.Bundle
	Examples []map[string]any
}

func facts(t *testing.T, b *catalog.Bundle) bundleFacts {
	t.Helper()
	ex, err := b.Examples()
	require.NoError(t, err)
	c := *b
	c.Source = catalog.Source{}
	c.Annotations = map[string]string{}
	for k, v := range b.Annotations {
		if k != "alm-examples" {
			c.Annotations[k] = v
		}
	}
	return bundleFacts{Bundle: c, Examples: ex}
}

// renders are the renders the examples run (README, Makefile, the examples' own files), and
// the catalog-aware flags: each must give the same result against the example catalogs as
// against the real catalog entries.
var renders = []struct {
	name string
	// inputs, relative to examples/
	inputs []string
	args   []string
}{
	// make example; internal/cli's golden
	{"quickstart", []string{"quickstart/manifests"}, nil},
	// testdata/installed/_rendered/quickstart.yaml and the README's installed --against
	{"quickstart pinned", []string{"quickstart/manifests"}, []string{"--pin"}},
	{"quickstart pinned manual", []string{"quickstart/manifests"}, []string{"--pin", "--manual-approval"}},
	{"quickstart check-pins", []string{"quickstart/manifests"}, []string{"--check-pins"}},
	{"quickstart fail-on-deprecated", []string{"quickstart/manifests"}, []string{"--fail-on-deprecated"}},
	// minKubeVersion: kube-green's head needs 1.27
	{"quickstart old cluster", []string{"quickstart/manifests"}, []string{"--kube-version", "1.26.0", "-v"}},
	{"quickstart json", []string{"quickstart/manifests"}, []string{"-o", "json"}},
	{"quickstart olm v1", []string{"quickstart/manifests"}, []string{"--olm", "v1"}},
	{"quickstart olm v1 watch namespace", []string{"quickstart/manifests"}, []string{"--olm", "v1", "--olm-v1-watch-namespace", "--olm-v1-service-account"}},
	// fails alike: the catalogs carry CSV metadata, not the bundles' contents
	{"quickstart olm none", []string{"quickstart/manifests"}, []string{"--olm", "none"}},
	{"quickstart no-olm", []string{"quickstart/manifests"}, []string{"--odlm-no-olm"}},
	// examples/kustomize and kustomize-generator (render.yaml: ordering argocd)
	{"kustomize", []string{"kustomize/registry.yaml", "kustomize/requests.yaml"}, []string{"--ordering", "argocd"}},
	// examples/kpt (render.yaml: ordering kpt)
	{"kpt", []string{"kpt/platform.yaml"}, []string{"--ordering", "kpt"}},
	// examples/argocd/application.yaml, as the plugin renders it (ordering argocd by default,
	// the cluster's version from Argo CD)
	{"argocd", []string{"argocd/platform"}, []string{"--ordering", "argocd", "--bindinfo-secrets", "external-secrets", "--kube-version", "1.33.4"}},
}

func TestExamplesRenderAsAgainstTheRealCatalogs(t *testing.T) {
	t.Parallel()
	for _, tc := range renders {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			var realCatalogs []string
			for _, name := range slices.Sorted(maps.Keys(packages)) {
				realCatalogs = append(realCatalogs, "--catalog", refdata.Testdata(t, "catalogs/community/"+name))
			}
			catalogs := map[string][]string{"example": {"--catalog", quickstartCatalog}, "real": realCatalogs}
			if strings.HasPrefix(tc.name, "argocd") {
				catalogs["example"] = []string{"--catalog", argoCDCatalog}
			}
			type result struct {
				code           int
				stdout, stderr string
			}
			got := map[string]result{}
			for which, cat := range catalogs {
				args := []string{"render"}
				for _, in := range tc.inputs {
					args = append(args, examplesDir+"/"+in)
				}
				args = append(append(args, cat...), tc.args...)
				var stdout, stderr strings.Builder
				code := cli.Main(args, strings.NewReader(""), &stdout, &stderr)
				errText := stderr.String()
				for i := 1; i < len(cat); i += 2 {
					errText = strings.ReplaceAll(errText, cat[i], "CATALOG")
				}
				got[which] = result{code, stdout.String(), errText}
			}
			example, ref := got["example"], got["real"]
			assert.Equal(t, ref.code, example.code, "exit code; stderr against the example catalogs:\n%s", example.stderr)
			assert.Equal(t, ref.stderr, example.stderr, "results")
			if strings.Contains(strings.Join(tc.args, " "), "json") {
				assert.JSONEq(t, ref.stdout, example.stdout)
				return
			}
			exampleObjs, err := manifest.Decode("example", []byte(example.stdout))
			require.NoError(t, err)
			realObjs, err := manifest.Decode("real", []byte(ref.stdout))
			require.NoError(t, err)
			require.Len(t, exampleObjs, len(realObjs), "objects")
			for i := range realObjs {
				assert.Equal(t, realObjs[i].Map, exampleObjs[i].Map, "object %d: %s %s/%s", i, realObjs[i].Kind(), realObjs[i].Namespace(), realObjs[i].Name())
			}
			assert.Equal(t, ref.stdout, example.stdout, "the same text")
		})
	}
}
