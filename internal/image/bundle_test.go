package image_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
)

// keycloakBundle is the real bundle folder of keycloak-operator 26.7.1, read from the
// reference folder (t skips without it).
func keycloakBundle(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "bundles/keycloak-operator-26.7.1")
}

// keycloakImage is the image of the keycloak bundle, with extra layers on top.
func keycloakImage(t *testing.T, extra ...v1.Layer) v1.Image {
	return testtools.BundleImage(t, keycloakBundle(t), "keycloak-operator", extra...)
}

// countingRegistry is go-containerregistry's in-process registry, counting blob reads.
func countingRegistry(t *testing.T) (host string, blobs *atomic.Int64) {
	t.Helper()
	blobs = &atomic.Int64{}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet {
			blobs.Add(1)
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), blobs
}

func TestPullBundleContents(t *testing.T) {
	img := keycloakImage(t)
	digest, err := img.Digest()
	require.NoError(t, err)
	host, blobs := countingRegistry(t)
	tagRef := host + "/community-operator-pipeline-prod/keycloak-operator:26.7.1"
	ref, err := name.ParseReference(tagRef)
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img))

	dir := t.TempDir()
	ociDir := filepath.Join(dir, "oci")
	p, err := layout.Write(ociDir, empty.Index)
	require.NoError(t, err)
	require.NoError(t, p.AppendImage(img))
	archive := filepath.Join(dir, "bundle.tar")
	require.NoError(t, tarball.WriteToFile(archive, ref, img))

	catalogRef := "quay.io/community-operator-pipeline-prod/keycloak-operator@" + digest.String()
	for _, tc := range []struct {
		name, ref string
		rewrites  []image.Rewrite
		source    string
	}{
		{"registry by tag", tagRef, nil, tagRef},
		{"registry by digest", host + "/community-operator-pipeline-prod/keycloak-operator@" + digest.String(), nil, ""},
		{"a mirror for the catalog's registry", catalogRef, []image.Rewrite{{From: "quay.io", To: host}}, host + "/community-operator-pipeline-prod/keycloak-operator@" + digest.String()},
		{"an OCI layout for the catalog's image", catalogRef, []image.Rewrite{{From: catalogRef, To: "oci:" + ociDir}}, "oci:" + ociDir},
		{"a docker-archive for the catalog's image", catalogRef, []image.Rewrite{{From: catalogRef, To: archive}}, archive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			puller := &image.BundlePuller{Rewrites: tc.rewrites}
			c, info, err := puller.Pull(context.Background(), tc.ref)
			require.NoError(t, err)
			if tc.source != "" {
				assert.Equal(t, tc.source, info.Source)
			}
			assert.Equal(t, digest.String(), info.Digest)
			require.Len(t, c.CRDs, 4)
			assert.Equal(t, "keycloaks.k8s.keycloak.org", c.CRDName(2))
			assert.Equal(t, []string{"keycloak-operator"}, c.Deployments)
		})
	}

	t.Run("cached by digest", func(t *testing.T) {
		puller := &image.BundlePuller{CacheDir: t.TempDir()}
		first, info, err := puller.Pull(context.Background(), tagRef)
		require.NoError(t, err)
		assert.False(t, info.Cached)
		before := blobs.Load()
		again, info, err := puller.Pull(context.Background(), tagRef)
		require.NoError(t, err)
		assert.True(t, info.Cached)
		assert.Equal(t, before, blobs.Load(), "no blob is read for a cached digest")
		assert.Equal(t, first, again)
		files, _ := os.ReadDir(puller.CacheDir)
		require.Len(t, files, 1)
		assert.Equal(t, "sha256-"+digest.Hex+".json", files[0].Name())
	})

	t.Run("failures name the image", func(t *testing.T) {
		puller := &image.BundlePuller{}
		_, _, err := puller.Pull(context.Background(), host+"/nothing/here:1")
		assert.ErrorContains(t, err, host+"/nothing/here:1")
		other := keycloakImage(t, layer(t, entry{Name: "manifests/extra.yaml", Body: "kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n"}))
		otherDir := filepath.Join(t.TempDir(), "oci")
		lp, err := layout.Write(otherDir, empty.Index)
		require.NoError(t, err)
		require.NoError(t, lp.AppendImage(other))
		puller.Rewrites = []image.Rewrite{{From: catalogRef, To: "oci:" + otherDir}}
		_, _, err = puller.Pull(context.Background(), catalogRef)
		assert.ErrorContains(t, err, "not "+digest.String()+" that the catalog names")
		noManifests, err := mutate.AppendLayers(empty.Image, layer(t, entry{Name: "metadata/annotations.yaml", Body: "annotations: {}\n"}))
		require.NoError(t, err)
		nmRef, _ := name.ParseReference(host + "/empty/bundle:1")
		require.NoError(t, remote.Write(nmRef, noManifests))
		_, _, err = puller.Pull(context.Background(), host+"/empty/bundle:1")
		assert.ErrorContains(t, err, "no manifest file (.yaml, .yml, .json) under /manifests")
	})

	t.Run("a later layer deletes a manifest", func(t *testing.T) {
		withWhiteout := keycloakImage(t, layer(t, entry{Name: "manifests/.wh.keycloaksamlclients.k8s.keycloak.org-v1.crd.yml"}))
		wRef, _ := name.ParseReference(host + "/whiteout/bundle:1")
		require.NoError(t, remote.Write(wRef, withWhiteout))
		c, _, err := (&image.BundlePuller{}).Pull(context.Background(), host+"/whiteout/bundle:1")
		require.NoError(t, err)
		assert.Len(t, c.CRDs, 3)
	})
}

func TestParseRewrite(t *testing.T) {
	r, err := image.ParseRewrite("quay.io=mirror.local:5000")
	require.NoError(t, err)
	assert.Equal(t, image.Rewrite{From: "quay.io", To: "mirror.local:5000"}, r)
	for _, bad := range []string{"quay.io", "=x", "x="} {
		_, err := image.ParseRewrite(bad)
		assert.ErrorContains(t, err, "expected FROM=TO", bad)
	}
}
