package image_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// kubeGreenBundle is the real bundle folder of kube-green 0.7.1, read from the reference
// folder (t skips without it).
func kubeGreenBundle(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "bundles/kube-green-0.7.1")
}

// evilBundle is kube-green's bundle with a CSV whose first cluster permission grants every
// verb on every resource: what an attacker wants a victim's render to install.
func evilBundle(t *testing.T) v1.Image {
	t.Helper()
	csvPath := "manifests/kube-green.clusterserviceversion.yaml"
	csv, err := os.ReadFile(filepath.Join(kubeGreenBundle(t), csvPath))
	require.NoError(t, err)
	rule := "        - apiGroups:\n          - \"\"\n          resources:\n          - secrets\n          verbs:\n          - create\n"
	require.Contains(t, string(csv), rule)
	evil := strings.Replace(string(csv), rule, "        - apiGroups:\n          - '*'\n          resources:\n          - '*'\n          verbs:\n          - '*'\n", 1)
	return testtools.BundleImage(t, kubeGreenBundle(t), "kube-green", layer(t, entry{Name: csvPath, Body: evil}))
}

// grantsEverything tells whether a bundle's contents grant every verb on every resource.
func grantsEverything(c *catalog.Contents) bool {
	for _, p := range append(slices.Clone(c.ClusterPermissions), c.Permissions...) {
		for _, r := range p.Rules {
			if slices.Contains(r.Verbs, "*") && slices.Contains(r.Resources, "*") {
				return true
			}
		}
	}
	return false
}

func digestOf(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.Digest()
	require.NoError(t, err)
	return d
}

func rawManifest(t *testing.T, img v1.Image) []byte {
	t.Helper()
	raw, err := img.RawManifest()
	require.NoError(t, err)
	return raw
}

// lyingRegistry is go-containerregistry's in-process registry holding the genuine kube-green
// bundle (tag v0.7.1) and the evil one, with lie rewriting some answers as an attacker who
// runs the registry may.
func lyingRegistry(t *testing.T, lie func(w http.ResponseWriter, r *http.Request) bool) (host string, genuine, evil v1.Hash) {
	t.Helper()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !lie(w, r) {
			reg.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	host = strings.TrimPrefix(srv.URL, "http://")
	good, bad := testtools.BundleImage(t, kubeGreenBundle(t), "kube-green"), evilBundle(t)
	for ref, img := range map[string]v1.Image{"kube-green:v0.7.1": good, "kube-green:evil": bad} {
		r, err := name.ParseReference(host + "/op/" + ref)
		require.NoError(t, err)
		require.NoError(t, remote.Write(r, img))
	}
	return host, digestOf(t, good), digestOf(t, bad)
}

// TestPullIsBoundToTheDigest: a registry cannot make the puller cache one image's contents
// under another image's digest. Before, the digest came from HEAD and the manifest from GET
// by tag, and a victim's later pull of the genuine digest got the evil contents from the
// cache.
func TestPullIsBoundToTheDigest(t *testing.T) {
	manifests := func(r *http.Request, ref string) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/op/kube-green/manifests/"+ref)
	}
	for _, tc := range []struct {
		name string
		lie  func(genuine, evil v1.Hash, evilManifest []byte) func(w http.ResponseWriter, r *http.Request) bool
		// the error of the attacker's pull by tag, "" when it reads the genuine image
		wantErr string
	}{
		{"GET by tag serves another image than HEAD named", func(genuine, evil v1.Hash, _ []byte) func(http.ResponseWriter, *http.Request) bool {
			return func(_ http.ResponseWriter, r *http.Request) bool {
				if manifests(r, "v0.7.1") {
					r.URL.Path = strings.Replace(r.URL.Path, "v0.7.1", evil.String(), 1)
				}
				return false
			}
		}, ""},
		{"GET by digest serves another manifest", func(genuine, evil v1.Hash, _ []byte) func(http.ResponseWriter, *http.Request) bool {
			return func(_ http.ResponseWriter, r *http.Request) bool {
				if manifests(r, genuine.String()) {
					r.URL.Path = strings.Replace(r.URL.Path, genuine.String(), evil.String(), 1)
				}
				return false
			}
		}, "does not match"},
		{"GET by digest serves another manifest, claiming the digest asked for", func(genuine, evil v1.Hash, evilManifest []byte) func(http.ResponseWriter, *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				if !manifests(r, genuine.String()) {
					return false
				}
				w.Header().Set("Docker-Content-Digest", genuine.String())
				w.Header().Set("Content-Type", "application/vnd.docker.distribution.manifest.v1+prettyjws")
				_, _ = w.Write(evilManifest)
				return true
			}
		}, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			honest := func(http.ResponseWriter, *http.Request) bool { return false }
			lie := honest
			host, genuine, evil := lyingRegistry(t, func(w http.ResponseWriter, r *http.Request) bool { return lie(w, r) })
			evilManifest := rawManifest(t, evilBundle(t))
			require.Equal(t, evil, digestOf(t, evilBundle(t)))
			lie = tc.lie(genuine, evil, evilManifest)
			cache := t.TempDir()

			// the attacker's catalog names the tag
			c, info, err := (&image.BundlePuller{CacheDir: cache}).Pull(context.Background(), host+"/op/kube-green:v0.7.1")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.ErrorContains(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
				assert.False(t, grantsEverything(c), "the contents of the image the digest names")
				assert.Equal(t, genuine.String(), info.Digest)
			}

			// a victim's catalog names the genuine digest; the cache must not answer for it with
			// anything but the genuine image
			lie = honest
			c, _, err = (&image.BundlePuller{CacheDir: cache}).Pull(context.Background(), host+"/op/kube-green@"+genuine.String())
			require.NoError(t, err)
			assert.False(t, grantsEverything(c), "the cache answered with another image's contents")
		})
	}

	t.Run("the catalog's digest is refused for a mirror that serves another image", func(t *testing.T) {
		host, genuine, _ := lyingRegistry(t, func(http.ResponseWriter, *http.Request) bool { return false })
		puller := &image.BundlePuller{Rewrites: []image.Rewrite{{From: "quay.io/op/kube-green@" + genuine.String(), To: host + "/op/kube-green:evil"}}}
		_, _, err := puller.Pull(context.Background(), "quay.io/op/kube-green@"+genuine.String())
		require.Error(t, err)
		assert.ErrorContains(t, err, host+"/op/kube-green:evil")
		assert.ErrorContains(t, err, "not "+genuine.String()+" that the catalog names")
	})
}

// TestCacheEntriesAreVerified: a cache entry edited on disk, or another image's entry under
// this digest's name, is a miss (with a warning) and the image is read again. Before, a cache
// hit was trusted as it was.
func TestCacheEntriesAreVerified(t *testing.T) {
	host, blobs := countingRegistry(t)
	kubeGreen := testtools.BundleImage(t, kubeGreenBundle(t), "kube-green")
	keycloak := keycloakImage(t)
	for ref, img := range map[string]v1.Image{"kube-green:1": kubeGreen, "keycloak:1": keycloak} {
		r, err := name.ParseReference(host + "/op/" + ref)
		require.NoError(t, err)
		require.NoError(t, remote.Write(r, img))
	}
	entry := func(dir string, img v1.Image) string {
		return filepath.Join(dir, "sha256-"+digestOf(t, img).Hex+".json")
	}
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
	}{
		{"a permission edited to *", func(t *testing.T, dir string) {
			data, err := os.ReadFile(entry(dir, kubeGreen))
			require.NoError(t, err)
			edited := strings.Replace(string(data), `"verbs":["create","delete","get","list","patch","update","watch"],"apiGroups":[""],"resources":["secrets"]`,
				`"verbs":["*"],"apiGroups":["*"],"resources":["*"]`, 1)
			require.NotEqual(t, string(data), edited)
			require.NoError(t, os.WriteFile(entry(dir, kubeGreen), []byte(edited), 0o644))
		}},
		{"another image's entry under this digest's name", func(t *testing.T, dir string) {
			_, _, err := (&image.BundlePuller{CacheDir: dir}).Pull(context.Background(), host+"/op/keycloak:1")
			require.NoError(t, err)
			require.NoError(t, os.Rename(entry(dir, keycloak), entry(dir, kubeGreen)))
		}},
		{"an entry cut short", func(t *testing.T, dir string) {
			data, err := os.ReadFile(entry(dir, kubeGreen))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(entry(dir, kubeGreen), data[:len(data)/2], 0o644))
		}},
		{"an entry of the old format, without its digest and checksum", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(entry(dir, kubeGreen), []byte(`{"CRDs":[],"Deployments":["x"]}`), 0o644))
		}},
		{"a FIFO in place of the entry (a blocking open would hang past --timeout)", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(entry(dir, kubeGreen)))
			require.NoError(t, syscall.Mkfifo(entry(dir, kubeGreen), 0o600))
		}},
		{"a good entry that other users may write (a planted one would pass its checksum)", func(t *testing.T, dir string) {
			require.NoError(t, os.Chmod(entry(dir, kubeGreen), 0o666))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var warnings []string
			puller := &image.BundlePuller{CacheDir: dir, Options: image.Options{Warn: func(s string) { warnings = append(warnings, s) }}}
			want, info, err := puller.Pull(context.Background(), host+"/op/kube-green:1")
			require.NoError(t, err)
			require.False(t, info.Cached)
			tc.tamper(t, dir)
			before := blobs.Load()
			warnings = nil
			got, info, err := puller.Pull(context.Background(), host+"/op/kube-green:1")
			require.NoError(t, err)
			assert.False(t, info.Cached, "a tampered entry is a miss")
			assert.Greater(t, blobs.Load(), before, "the image is read again")
			assert.True(t, reflect.DeepEqual(want, got), "the contents read again are the image's")
			assert.False(t, grantsEverything(got))
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0], entry(dir, kubeGreen))
			assert.Contains(t, warnings[0], "reading the image again")
			// the entry is written again, and good
			_, info, err = puller.Pull(context.Background(), host+"/op/kube-green:1")
			require.NoError(t, err)
			assert.True(t, info.Cached)
		})
	}
}

// TestCacheFolderOthersMayWriteIsRefused: a cache folder writable by other users is refused
// before any pull, naming the fix; one of the owner's alone, or none yet, is fine.
func TestCacheFolderOthersMayWriteIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, image.CheckCacheDir(dir))
	require.NoError(t, image.CheckCacheDir(filepath.Join(dir, "not-yet")))
	shared := filepath.Join(dir, "shared")
	require.NoError(t, os.Mkdir(shared, 0o700))
	require.NoError(t, os.Chmod(shared, 0o777))
	err := image.CheckCacheDir(shared)
	require.ErrorContains(t, err, "is writable by other users")
	require.ErrorContains(t, err, "chmod go-w "+shared)
}
