package golden_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
)

// TestCatalogPath joins a relative entry to the root and keeps an absolute one (a resolved
// generated catalog).
func TestCatalogPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ root, entry, want string }{
		{"../../testdata/catalogs", "community/kube-green", "../../testdata/catalogs/community/kube-green"},
		{"../../testdata/catalogs", "../catalogs-pulled/kube-green.snapshot.yaml", "../../testdata/catalogs-pulled/kube-green.snapshot.yaml"},
		{"../../testdata", "/abs/generated/x.snapshot.yaml", "/abs/generated/x.snapshot.yaml"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, golden.CatalogPath(tt.root, tt.entry), tt.entry)
	}
}

// TestResolveCatalogs gives a generated catalog's absolute path, the file written, and keeps
// the other entries.
func TestResolveCatalogs(t *testing.T) {
	t.Parallel()
	got := golden.ResolveCatalogs(t, []string{"community/kube-green", golden.GeneratedPrefix + "real-foundational-services"})
	require.Len(t, got, 2)
	assert.Equal(t, "community/kube-green", got[0])
	assert.True(t, filepath.IsAbs(got[1]), got[1])
	assert.Contains(t, filepath.Base(got[1]), "real-foundational-services-")
	fi, err := os.Stat(got[1])
	require.NoError(t, err)
	assert.Positive(t, fi.Size())
}

// TestLoadCaseResolvesAGeneratedCatalog: a case naming a generated catalog loads with its
// path, which CatalogPaths keeps.
func TestLoadCaseResolvesAGeneratedCatalog(t *testing.T) {
	t.Parallel()
	c := golden.LoadCase(t, "../../testdata/render/real-foundational-services-olm-none")
	paths := c.CatalogPaths("../../testdata/catalogs")
	require.Len(t, paths, 1)
	assert.True(t, filepath.IsAbs(paths[0]), paths[0])
	assert.Equal(t, c.Catalogs, paths)
}
