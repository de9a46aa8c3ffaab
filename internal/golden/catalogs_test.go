package golden_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/refdata"
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

// TestCatalogPathsResolveAGeneratedCatalog: a case naming a generated catalog keeps the entry
// as written; CatalogPaths gives the generated file's absolute path.
func TestCatalogPathsResolveAGeneratedCatalog(t *testing.T) {
	t.Parallel()
	c := golden.LoadCase(t, "../../testdata/render/real-foundational-services-olm-none")
	assert.Equal(t, []string{golden.GeneratedPrefix + "real-foundational-services"}, c.Catalogs)
	assert.True(t, c.NeedsReference())
	paths := c.CatalogPaths(t, "../../testdata/catalogs")
	require.Len(t, paths, 1)
	assert.True(t, filepath.IsAbs(paths[0]), paths[0])
}

// TestReferenceEntries: "reference:PATH" entries of catalogs, snapshots and inputs resolve in
// the reference folder, and the paths of its files read back as written.
func TestReferenceEntries(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cat", "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snap.yaml"), nil, 0o644))
	t.Setenv(refdata.Env, dir)
	c := golden.Case{
		Dir:       "/cases/x",
		Catalogs:  []string{refdata.Prefix + "cat/pkg", "community/kube-green"},
		Snapshots: []string{refdata.Prefix + "snap.yaml", "snapshot"},
		Inputs:    []string{refdata.Prefix + "cat"},
	}
	assert.True(t, c.NeedsReference())
	assert.Equal(t, []string{filepath.Join(dir, "cat/pkg"), "root/community/kube-green"}, c.CatalogPaths(t, "root"))
	assert.Equal(t, []string{filepath.Join(dir, "snap.yaml"), "/cases/x/snapshot"}, c.SnapshotPaths(t))
	assert.Equal(t, []string{"/cases/x/input", filepath.Join(dir, "cat")}, c.InputPaths(t))
	assert.Equal(t, "input/a.yaml:3 and reference:snap.yaml:1",
		golden.Relative("/cases/x/input/a.yaml:3 and "+filepath.Join(dir, "snap.yaml")+":1", "/cases/x"))
	assert.False(t, golden.Case{Catalogs: []string{"community/kube-green"}}.NeedsReference())
}
