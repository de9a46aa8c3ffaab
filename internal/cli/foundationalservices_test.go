package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/testfixture"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// fsPulledDigest is the sha256 of the snapshot internal/testfixture generates for the
// foundational services catalog (generated:real-foundational-services, which golden cases
// real-foundational-services-olm-none and real-foundational-services-pulled-contents read):
// a change of it is reviewed on purpose (-update rewrites it).
const fsPulledDigest = "../../testdata/catalogs-pulled/real-foundational-services.sha256"

// TestExtractPullsFoundationalServicesContents checks the snapshot golden cases read for the
// foundational services catalog with every head's contents pulled, which internal/testfixture
// generates at test time: it is what catalog extract --bundle-contents pull writes (the
// command run here on the same catalog, every head's image served by an in-process registry
// and built from its real bundle folder), its sha256 is the one checked in, each head
// carries its own CSV's install strategy and CRDs, no other bundle carries contents, and
// nothing else differs from the catalog. The catalog (but for the project's rhbk-operator
// stand-in) and the bundles are read from the reference folder.
func TestExtractPullsFoundationalServicesContents(t *testing.T) {
	fsCatalog := realCatalog(t)
	requireHeadsCovered(t, fsCatalog)
	generated, err := testfixture.Path(testfixture.FoundationalServices)
	require.NoError(t, err)
	snap, err := os.ReadFile(generated)
	require.NoError(t, err)
	requireDigest(t, snap)
	csvNames := map[string]string{}
	for _, h := range testfixture.Heads {
		csvNames[h.Bundle] = csvNameOf(t, h)
	}

	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	images, err := testfixture.PushHeads(host)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, testfixture.CopyCatalogWithImages(fsCatalog, filepath.Join(dir, "catalog"), images))
	t.Chdir(dir) // the snapshot's source.ref is the folder as --from names it

	code, _, stderr := extract(t, "", "catalog", "extract", "--from", "catalog",
		"--name", testfixture.PulledName, "--bundle-contents", "pull",
		"--bundle-image-source", testfixture.BundleHost+"="+host, "--cache-dir", "", "-o", "pulled.yaml")
	require.Equal(t, ExitOK, code, stderr)
	pulled, err := os.ReadFile("pulled.yaml")
	require.NoError(t, err)
	assert.Equal(t, string(pulled), string(snap), "the generated snapshot %s is what catalog extract writes", generated)

	assert.Equal(t, extractedText(t, "--from", "catalog"), extractedText(t, "--from", generated, "--bundle-contents", "drop"),
		"the pull adds the heads' contents and changes nothing else")

	c, err := catalog.Load(generated)
	require.NoError(t, err)
	assert.Empty(t, fbc.HeadsWithoutContents(c))
	for _, h := range testfixture.Heads {
		b := findBundle(t, c, h.Bundle)
		require.NotNil(t, b.Contents, h.Bundle)
		require.NotNil(t, b.Contents.Install, h.Bundle)
		assert.Equal(t, csvNames[h.Bundle], b.Contents.Install.CSVName, h.Bundle)
	}
	assert.Equal(t, len(testfixture.Heads), strings.Count(string(snap), "\n      contents:\n"), "only channel heads carry contents")
}

// requireDigest checks the sha256 of the generated snapshot against fsPulledDigest
// (sha256sum's format), or rewrites that file with -update.
func requireDigest(t *testing.T, snap []byte) {
	t.Helper()
	sum := sha256.Sum256(snap)
	line := hex.EncodeToString(sum[:]) + "  " + testfixture.FoundationalServices + ".snapshot.yaml\n"
	if *golden.Update {
		require.NoError(t, os.WriteFile(fsPulledDigest, []byte(line), 0o644))
	}
	want, err := os.ReadFile(fsPulledDigest)
	require.NoError(t, err)
	require.Equal(t, string(want), line,
		"the generated snapshot changed: read its diff, then go test ./internal/cli -run TestExtractPullsFoundationalServicesContents -update")
}

// requireHeadsCovered checks that testfixture.Heads are exactly the channel heads of the
// catalog folder fsCatalog, with the images it names.
func requireHeadsCovered(t *testing.T, fsCatalog string) {
	t.Helper()
	c, err := catalog.Load(fsCatalog)
	require.NoError(t, err)
	var got, want []string
	for _, b := range fbc.HeadsWithoutContents(c) {
		got = append(got, b.Name+" "+b.Image)
	}
	for _, h := range testfixture.Heads {
		want = append(want, h.Bundle+" "+h.Image)
	}
	slices.Sort(got)
	slices.Sort(want)
	require.Equal(t, want, got, "testfixture.Heads: the heads of %s", fsCatalog)
}

// extractedText is the snapshot catalog extract writes with args (in the current folder),
// named like the pulled one, its source.ref left out.
func extractedText(t *testing.T, args ...string) string {
	t.Helper()
	code, _, stderr := extract(t, "", append([]string{"catalog", "extract", "--name", testfixture.PulledName, "-o", "text.yaml"}, args...)...)
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

// csvNameOf is the metadata.name of the ClusterServiceVersion in h's bundle folder (the
// reference folder's copy of testdata/bundles).
func csvNameOf(t *testing.T, h testfixture.Head) string {
	t.Helper()
	dir, err := testfixture.BundleDir(h)
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "*.clusterserviceversion.yaml"))
	require.NoError(t, err)
	require.Len(t, files, 1, dir)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var csv operatorsv1alpha1.ClusterServiceVersion
	require.NoError(t, yaml.Unmarshal(data, &csv), files[0])
	return csv.Name
}
