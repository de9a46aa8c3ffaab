package testfixture_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testfixture"
	"github.com/odlm-render/odlm-render/internal/testtools"
)

// TestBundleImageDigestIsStable: kube-green 0.7.1's folder gives the digest that the
// checked-in snapshot testdata/catalogs-pulled/kube-green.snapshot.yaml names for its image
// (built by testtools.BundleImage, which uses this builder), so that a change of the builder,
// which would change every generated snapshot's images, is seen.
func TestBundleImageDigestIsStable(t *testing.T) {
	t.Parallel()
	img, err := testfixture.BundleImage(refdata.Path(t, testfixture.BundlesDir+"/kube-green-0.7.1"), "kube-green")
	require.NoError(t, err)
	got, err := img.Digest()
	require.NoError(t, err)
	snapshot, err := os.ReadFile("../../testdata/catalogs-pulled/kube-green.snapshot.yaml")
	require.NoError(t, err)
	assert.Contains(t, string(snapshot), "kube-green@"+got.String())
}

// TestBundleImageOfAMissingFolder names the folder.
func TestBundleImageOfAMissingFolder(t *testing.T) {
	t.Parallel()
	_, err := testfixture.BundleImage(filepath.Join(t.TempDir(), "nothing"), "p")
	require.ErrorContains(t, err, "nothing")
}

// TestPathOfAnUnknownName lists the known names.
func TestPathOfAnUnknownName(t *testing.T) {
	t.Parallel()
	_, err := testfixture.Path("no-such-file")
	require.ErrorContains(t, err, `"no-such-file": unknown (known: `+testfixture.FoundationalServices+")")
}

// TestHeadsHaveBundleFolders: every head's folder is in the reference folder's copy of
// testdata/bundles.
func TestHeadsHaveBundleFolders(t *testing.T) {
	t.Parallel()
	refdata.Path(t, testfixture.BundlesDir)
	for _, h := range testfixture.Heads {
		dir, err := testfixture.BundleDir(h)
		require.NoError(t, err, h.Bundle)
		fi, err := os.Stat(filepath.Join(dir, "manifests"))
		require.NoError(t, err, h.Bundle)
		assert.True(t, fi.IsDir(), h.Bundle)
	}
}

// TestAssembleFoundationalServicesCatalog: the catalog is the reference folder's three real
// packages, as the repository held them, and the repository's own stand-in, one folder each.
func TestAssembleFoundationalServicesCatalog(t *testing.T) {
	t.Parallel()
	want := testtools.TreeFiles(t, refdata.Testdata(t, "render/real-foundational-services/catalog"))
	root, err := testfixture.RepoRoot()
	require.NoError(t, err)
	standIn, err := os.ReadFile(filepath.Join(root, "testdata/render/real-foundational-services/catalog/rhbk-operator/catalog.yaml"))
	require.NoError(t, err)
	want["rhbk-operator/catalog.yaml"] = string(standIn)
	dst := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, testfixture.AssembleFoundationalServicesCatalog(root, dst))
	assert.Equal(t, want, testtools.TreeFiles(t, dst))
}

// TestAssembleWithoutReferenceData: without the reference folder the generated file cannot be
// made, and the error says so (refdata.ErrMissing: the tests that read it skip).
func TestAssembleWithoutReferenceData(t *testing.T) {
	t.Setenv(refdata.Env, filepath.Join(t.TempDir(), "none"))
	root, err := testfixture.RepoRoot()
	require.NoError(t, err)
	err = testfixture.AssembleFoundationalServicesCatalog(root, t.TempDir())
	require.ErrorIs(t, err, refdata.ErrMissing)
	_, err = testfixture.BundleDir(testfixture.Heads[0])
	require.ErrorIs(t, err, refdata.ErrMissing)
}

// TestCopyCatalogWithImages renames each image once, and refuses an image that occurs
// other than once.
func TestCopyCatalogWithImages(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "p"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "p", "catalog.yaml"),
		[]byte("image: a.example/x:1\n---\nimage: a.example/y:1\n---\nimage: a.example/y:1\n"), 0o644))
	tests := []struct {
		name    string
		images  map[string]string
		want    string
		wantErr string
	}{
		{name: "renamed", images: map[string]string{"a.example/x:1": "b.test/x@sha256:1"},
			want: "image: b.test/x@sha256:1\n---\nimage: a.example/y:1\n---\nimage: a.example/y:1\n"},
		{name: "twice", images: map[string]string{"a.example/y:1": "b.test/y"}, wantErr: "image a.example/y:1 occurs 2 times"},
		{name: "absent", images: map[string]string{"a.example/z:1": "b.test/z"}, wantErr: "image a.example/z:1 occurs 0 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dst := filepath.Join(t.TempDir(), "catalog")
			err := testfixture.CopyCatalogWithImages(src, dst, tt.images)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(dst, "p", "catalog.yaml"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
