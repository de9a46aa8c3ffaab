package cli

import (
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// fsPulledSnapshot is the CatalogSnapshot TestExtractPullsFoundationalServicesContents
// writes: the catalog of IBM's foundational services cases with the contents of every channel
// head pulled from a registry; golden case real-foundational-services-olm-none renders from it.
const fsPulledSnapshot = "../../testdata/catalogs-pulled/real-foundational-services.snapshot.yaml"

// fsCatalog is the catalog of the real-foundational-services golden cases: IBM's two
// operators and the rhbk-operator stand-in as FBC, EDB's package as a CatalogSnapshot.
const fsCatalog = "../../testdata/render/real-foundational-services/catalog"

// fsHead is a channel head of fsCatalog and the real bundle its image is built from.
type fsHead struct {
	bundle string // the bundle's name in the catalog
	image  string // the image the catalog names for it
	dir    string // the bundle folder under testdata/bundles
	pkg    string // the package its metadata/annotations.yaml names (the image's label)
}

// fsHeads are every channel head of fsCatalog: extract pulls them all, not only the ones the
// registry's channels choose. The rhbk-operator heads are community keycloak-operator
// bundles of the stand-in's versions (Red Hat's are not public).
var fsHeads = []fsHead{
	{"ibm-iam-operator.v4.18.1", "icr.io/cpopen/ibm-iam-operator-bundle:4.18.1", "ibm-iam-operator-4.18.1", "ibm-iam-operator"},
	{"ibm-commonui-operator.v4.15.1", "icr.io/cpopen/ibm-commonui-operator-bundle:4.15.1", "ibm-commonui-operator-4.15.1", "ibm-commonui-operator-app"},
	{"rhbk-operator.v22.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-22", "keycloak-operator-22.0.0", "keycloak-operator"},
	{"rhbk-operator.v24.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-24", "keycloak-operator-24.0.0", "keycloak-operator"},
	{"rhbk-operator.v26.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-26", "keycloak-operator-26.0.0", "keycloak-operator"},
	{"cloud-native-postgresql.v1.25.9", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:1d6d00d7e62a5ba008e55686f88fa98cad572903f901df6f6b37a1039e2c9198", "cloud-native-postgresql-1.25.9", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.26.3", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:14ef013d84432c0901b5eaa7128e186d7dc604b699eb9b1cb3d63ca9d44366af", "cloud-native-postgresql-1.26.3", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.27.4", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:014af868d538bef2e99297fe3d95353bfca398f90b49fe00966da76668ad80f0", "cloud-native-postgresql-1.27.4", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.28.4", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:ac1d61d6cf0b9619dd592fd4afc4c88081f9ff470d70ebbd768472b73e0b8fc8", "cloud-native-postgresql-1.28.4", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.29.0", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:d8255798b01788849d0fd3c93f48c23336ef0c7dbb91d6a1dc829c354e485720", "cloud-native-postgresql-1.29.0", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.29.2", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:da9e72d272878ab2ca23481057e9cf5d113ca90a28f447f0671b6c672e695f01", "cloud-native-postgresql-1.29.2", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.30.0", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:0f0e3b6cac58677a5648f9578d12e2227c70f87f168409efd24464a73ee515c2", "cloud-native-postgresql-1.30.0", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.30.0-rc1", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:3261a56154b4570b0e08062c647d4758914dcb3ceba0e0ea3d3664350c3be5c8", "cloud-native-postgresql-1.30.0-rc1", "cloud-native-postgresql"},
}

// TestExtractPullsFoundationalServicesContents writes the snapshot golden case
// real-foundational-services-olm-none renders from: catalog extract --bundle-contents pull of
// the foundational services catalog, every head's image served by an in-process registry
// and built from its real bundle folder. Each head carries its own CSV's install strategy and
// CRDs, no other bundle carries contents, and nothing else differs from the catalog.
func TestExtractPullsFoundationalServicesContents(t *testing.T) {
	requireHeadsCovered(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	images := pushHeads(t, host)

	csvNames := map[string]string{}
	for _, h := range fsHeads {
		csvNames[h.bundle] = csvNameOf(t, h.dir)
	}
	goldenPath, err := filepath.Abs(fsPulledSnapshot)
	require.NoError(t, err)
	dir := t.TempDir()
	copyCatalogWithImages(t, fsCatalog, filepath.Join(dir, "catalog"), images)
	t.Chdir(dir) // the snapshot's source.ref is the folder as --from names it
	out := "pulled.yaml"

	code, _, stderr := extract(t, "", "catalog", "extract", "--from", "catalog",
		"--name", "real-foundational-services-pulled", "--bundle-contents", "pull",
		"--bundle-image-source", bundleHost+"="+host, "--cache-dir", "", "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	snap, err := os.ReadFile(out)
	require.NoError(t, err)

	if *golden.Update {
		require.NoError(t, os.WriteFile(goldenPath, snap, 0o644))
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(snap), "go test ./internal/cli -run TestExtractPullsFoundationalServicesContents -update")

	assert.Equal(t, extractedText(t, "--from", "catalog"), extractedText(t, "--from", out, "--bundle-contents", "drop"),
		"the pull adds the heads' contents and changes nothing else")

	c, err := catalog.Load(out)
	require.NoError(t, err)
	assert.Empty(t, c.HeadsWithoutContents())
	for _, h := range fsHeads {
		b := findBundle(t, c, h.bundle)
		require.NotNil(t, b.Contents, h.bundle)
		require.NotNil(t, b.Contents.Install, h.bundle)
		assert.Equal(t, csvNames[h.bundle], b.Contents.Install.CSVName, h.bundle)
	}
	assert.Equal(t, len(fsHeads), strings.Count(string(snap), "\n      contents:\n"), "only channel heads carry contents")
}

// requireHeadsCovered checks that fsHeads are exactly the channel heads of fsCatalog, with
// the images it names.
func requireHeadsCovered(t *testing.T) {
	t.Helper()
	c, err := catalog.Load(fsCatalog)
	require.NoError(t, err)
	var got, want []string
	for _, b := range c.HeadsWithoutContents() {
		got = append(got, b.Name+" "+b.Image)
	}
	for _, h := range fsHeads {
		want = append(want, h.bundle+" "+h.image)
	}
	slices.Sort(got)
	slices.Sort(want)
	require.Equal(t, want, got, "fsHeads: the heads of %s", fsCatalog)
}

// pushHeads builds each head's bundle image from its folder, pushes it to the registry at
// host, and returns the catalog's image of each head mapped to the image name that
// --bundle-image-source sends to it.
func pushHeads(t *testing.T, host string) map[string]string {
	t.Helper()
	images := map[string]string{}
	for _, h := range fsHeads {
		img := testtools.BundleImage(t, filepath.Join("../../testdata/bundles", h.dir), h.pkg)
		digest, err := img.Digest()
		require.NoError(t, err)
		repo := repositoryPath(t, h.image)
		ref, err := name.ParseReference(host + "/" + repo + "@" + digest.String())
		require.NoError(t, err)
		require.NoError(t, remote.Write(ref, img), h.bundle)
		images[h.image] = bundleHost + "/" + repo + "@" + digest.String()
	}
	return images
}

// repositoryPath is an image reference's repository without its registry.
func repositoryPath(t *testing.T, image string) string {
	t.Helper()
	ref, err := name.ParseReference(image)
	require.NoError(t, err)
	return ref.Context().RepositoryStr()
}

// copyCatalogWithImages copies the catalog folder src to dst, each image named in images
// replaced by its value; every image must occur exactly once.
func copyCatalogWithImages(t *testing.T, src, dst string, images map[string]string) {
	t.Helper()
	seen := map[string]int{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := string(data)
		for from, to := range images {
			seen[from] += strings.Count(text, "image: "+from+"\n")
			text = strings.ReplaceAll(text, "image: "+from+"\n", "image: "+to+"\n")
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), []byte(text), 0o644)
	})
	require.NoError(t, err)
	for from := range images {
		assert.Equal(t, 1, seen[from], "image %s in %s", from, src)
	}
}

// extractedText is the snapshot catalog extract writes with args (in the current folder),
// named like the pulled one, its source.ref left out.
func extractedText(t *testing.T, args ...string) string {
	t.Helper()
	code, _, stderr := extract(t, "", append([]string{"catalog", "extract", "--name", "real-foundational-services-pulled", "-o", "text.yaml"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	data, err := os.ReadFile("text.yaml")
	require.NoError(t, err)
	var lines []string
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "    ref: ") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "")
}

// findBundle is the bundle of that name in any package of c.
func findBundle(t *testing.T, c *catalog.Catalog, bundle string) *catalog.Bundle {
	t.Helper()
	for _, pn := range c.PackageNames() {
		p, _ := c.Package(pn)
		if b, ok := p.Bundles[bundle]; ok {
			return b
		}
	}
	require.Failf(t, "bundle not found", "%s", bundle)
	return nil
}

// csvNameOf is the metadata.name of the ClusterServiceVersion in a bundle folder of
// testdata/bundles.
func csvNameOf(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../../testdata/bundles", dir, "manifests", "*.clusterserviceversion.yaml"))
	require.NoError(t, err)
	require.Len(t, files, 1, dir)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var csv operatorsv1alpha1.ClusterServiceVersion
	require.NoError(t, yaml.Unmarshal(data, &csv), files[0])
	return csv.Name
}
