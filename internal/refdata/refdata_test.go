package refdata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRootFollowsTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "f.yaml"), []byte("x"), 0o644))
	t.Setenv(Env, dir)

	root, err := Root()
	require.NoError(t, err)
	assert.Equal(t, dir, root)
	assert.True(t, Available())

	p, err := Lookup("a/f.yaml")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "a", "f.yaml"), p)

	_, err = Lookup("a/g.yaml")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrMissing, "a folder that lacks the file is not missing reference data")
	assert.Contains(t, err.Error(), "a/g.yaml")

	_, err = Lookup("../outside")
	require.Error(t, err)

	got, ok := Resolve(t, Prefix+"a/f.yaml")
	assert.True(t, ok)
	assert.Equal(t, p, got)
	got, ok = Resolve(t, "community/kube-green")
	assert.False(t, ok)
	assert.Equal(t, "community/kube-green", got)
}

func TestMissingFolderSaysHowToPointAtIt(t *testing.T) {
	t.Setenv(Env, filepath.Join(t.TempDir(), "absent"))
	assert.False(t, Available())
	_, err := Lookup("x")
	require.ErrorIs(t, err, ErrMissing)
	assert.Contains(t, err.Error(), Env)
	assert.Contains(t, err.Error(), "absent")
}

func TestSkipIsLogged(t *testing.T) {
	if os.Getenv(EnvRequire) == "1" {
		t.Skip("with ODLM_RENDER_REQUIRE_TOOLS=1 a skip is a failure")
	}
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvSkipLog, log)
	t.Setenv(Env, filepath.Join(t.TempDir(), "absent"))
	t.Run("needs-data", func(t *testing.T) { Path(t, "x") })
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "TestSkipIsLogged/needs-data\n", string(b))
}
