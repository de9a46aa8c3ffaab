package cli

import (
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// pulledSnapshot is the CatalogSnapshot TestExtractPullsBundleContents writes: the real
// kube-green package (catalogs/v4.20, CSV metadata only) with the contents of its channel
// head pulled from a registry, both read from the reference folder; golden case
// bundle-contents-pulled renders from it.
const pulledSnapshot = "../../testdata/catalogs-pulled/kube-green.snapshot.yaml"

// bundleHost is the registry the test catalog names for the head bundle's image; a
// --bundle-image-source rewrite sends it to the in-process registry.
const bundleHost = "bundles.odlm-render.test"

func TestExtractPullsBundleContents(t *testing.T) {
	img := testtools.BundleImage(t, refdata.Testdata(t, "bundles/kube-green-0.7.1"), "kube-green")
	digest, err := img.Digest()
	require.NoError(t, err)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	ref, err := name.ParseReference(host + "/community-operator-pipeline-prod/kube-green:v0.7.1")
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img))

	// the real v4.20 catalog of kube-green, its head's image naming the image built above
	catalogYAML, err := os.ReadFile(filepath.Join(testCatalogs(t), "community/kube-green/catalog.yaml"))
	require.NoError(t, err)
	headImage := "quay.io/community-operator-pipeline-prod/kube-green@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0"
	require.Contains(t, string(catalogYAML), "image: "+headImage, "kube-green.v0.7.1's image in catalogs/v4.20")
	testImage := bundleHost + "/community-operator-pipeline-prod/kube-green@" + digest.String()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "catalog"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog", "catalog.yaml"), []byte(strings.Replace(string(catalogYAML), headImage, testImage, 1)), 0o644))
	out := filepath.Join(dir, "snapshot.yaml")
	cache := filepath.Join(dir, "cache")
	goldenPath, err := filepath.Abs(pulledSnapshot)
	require.NoError(t, err)
	t.Chdir(dir)

	args := []string{"catalog", "extract", "--from", "catalog", "--package", "kube-green", "--name", "kube-green-pulled",
		"--bundle-contents", "pull", "--bundle-image-source", bundleHost + "=" + host, "--cache-dir", cache, "-o", out}
	code, _, stderr := extract(t, "", args...)
	require.Equal(t, ExitOK, code, stderr)
	snap, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(snap), "name: sleepinfos.kube-green.com")

	// the snapshot is the golden file the render case reads
	if *golden.Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
		require.NoError(t, os.WriteFile(goldenPath, snap, 0o644))
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(snap), "go test ./internal/cli -run TestExtractPullsBundleContents -update")
	c, err := catalog.Load(out)
	require.NoError(t, err)
	p, _ := c.Package("kube-green")
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	require.NotNil(t, head.Contents)
	assert.Nil(t, p.Bundles["kube-green.v0.7.0"].Contents, "only channel heads are pulled")

	// again: from the cache, without the registry
	srv.Close()
	code, _, stderr = extract(t, "", args...)
	require.Equal(t, ExitOK, code, stderr)
	again, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(snap), string(again))

	// without the cache, a failed pull is an error naming the bundle and the image, and no
	// snapshot is written
	require.NoError(t, os.Remove(out))
	code, _, stderr = extract(t, "", append(args[:len(args)-2:len(args)-2], "--cache-dir", "", "-o", out)...)
	assert.Equal(t, ExitErrors, code)
	assert.Contains(t, stderr, "bundle kube-green.v0.7.1 (package kube-green): "+host+"/community-operator-pipeline-prod/kube-green@"+digest.String())
	assert.NoFileExists(t, out)

	// without pull, extract says which heads have no contents
	code, _, stderr = extract(t, "", "catalog", "extract", "--from", "catalog", "--package", "kube-green", "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "1 channel heads carry no contents (the catalog has their CSV metadata only): kube-green.v0.7.1;")

	code, _, stderr = extract(t, "", "catalog", "extract", "--from", "catalog", "--bundle-contents", "pul")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `--bundle-contents "pul": must be keep, pull or drop (did you mean "pull"?)`)
	code, _, stderr = extract(t, "", "catalog", "extract", "--from", "catalog", "--bundle-image-source", "x=y")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "--bundle-image-source needs --bundle-contents pull")
}

// TestExtractReadsATamperedCacheEntryAgain: a cache entry edited on disk (a permission made
// `*`) is not used: extract warns, reads the bundle image again and writes the snapshot it
// wrote before. Before, the edited entry went into the snapshot.
func TestExtractReadsATamperedCacheEntryAgain(t *testing.T) {
	img := testtools.BundleImage(t, refdata.Testdata(t, "bundles/kube-green-0.7.1"), "kube-green")
	digest, err := img.Digest()
	require.NoError(t, err)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	ref, err := name.ParseReference(host + "/op/kube-green@" + digest.String())
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img))
	catalogYAML, err := os.ReadFile(filepath.Join(testCatalogs(t), "community/kube-green/catalog.yaml"))
	require.NoError(t, err)
	headImage := "quay.io/community-operator-pipeline-prod/kube-green@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0"
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "catalog"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog", "catalog.yaml"), []byte(strings.Replace(string(catalogYAML), headImage, ref.String(), 1)), 0o644))
	cache := filepath.Join(dir, "cache")
	t.Chdir(dir)
	args := []string{"catalog", "extract", "--from", "catalog", "--package", "kube-green", "--bundle-contents", "pull", "--cache-dir", cache, "-o"}

	code, _, stderr := extract(t, "", append(args, "first.yaml")...)
	require.Equal(t, ExitOK, code, stderr)
	entry := filepath.Join(cache, "sha256-"+digest.Hex+".json")
	data, err := os.ReadFile(entry)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"resources":["secrets"]`, `"resources":["*"]`, 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(entry, []byte(edited), 0o644))

	code, _, stderr = extract(t, "", append(args, "second.yaml")...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, entry+": the cache entry does not match its checksum")
	assert.Contains(t, stderr, "reading the image again")
	first, err := os.ReadFile("first.yaml")
	require.NoError(t, err)
	second, err := os.ReadFile("second.yaml")
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))
	assert.NotContains(t, string(second), "- '*'")
}
