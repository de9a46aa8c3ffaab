package testfixture

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// TestWriteAtomicLeavesOnlyTheFile: the file holds the data, and no temporary file stays.
func TestWriteAtomicLeavesOnlyTheFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "generated")
	file := filepath.Join(dir, "x-0123.snapshot.yaml")
	require.NoError(t, writeAtomic(file, []byte("one\n")))
	require.NoError(t, writeAtomic(file, []byte("two\n")))
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

// TestPruneStale removes the generator's files under other keys and its temporary files once
// they are older than staleAfter, and nothing else.
func TestPruneStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := generator{base: "x", ext: ".snapshot.yaml"}
	now := time.Now()
	old := now.Add(-2 * staleAfter)
	files := []struct {
		name   string
		mtime  time.Time
		stays  bool
		reason string
	}{
		{"x-aaaa.snapshot.yaml", now, true, "the current file"},
		{"x-bbbb.snapshot.yaml", old, false, "an old key"},
		{"x-cccc.snapshot.yaml", now, true, "a recent other key (a test binary may read it)"},
		{".x-bbbb.snapshot.yaml.tmp-123", old, false, "an old temporary file"},
		{".x-dddd.snapshot.yaml.tmp-456", now, true, "a temporary file being written"},
		{"y-bbbb.snapshot.yaml", old, true, "another generator's"},
		{"x-bbbb.txt", old, true, "not a generated file"},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		require.NoError(t, os.Chtimes(p, f.mtime, f.mtime))
	}
	pruneStale(dir, g, filepath.Join(dir, "x-aaaa.snapshot.yaml"), now)
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		assert.Equal(t, f.stays, err == nil, "%s: %s", f.name, f.reason)
	}
}

// TestKeyFollowsTheInputs: the key changes with a file's contents, its name and the
// generator's version, and only then.
func TestKeyFollowsTheInputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "in"), 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, "in", name), []byte(text), 0o644))
	}
	key := func(version string) string {
		in := newInputs(root, version)
		require.NoError(t, in.addTree("in", nil))
		return in.key()
	}
	write("a", "one")
	first := key("1")
	assert.Len(t, first, keyLength)
	assert.Equal(t, first, key("1"), "the same inputs")
	assert.NotEqual(t, first, key("2"), "another generator version")
	write("a", "two")
	second := key("1")
	assert.NotEqual(t, first, second, "other contents")
	require.NoError(t, os.Rename(filepath.Join(root, "in", "a"), filepath.Join(root, "in", "b")))
	assert.NotEqual(t, second, key("1"), "another name")
}

// TestKeyOfReferenceFiles: a reference folder's file is hashed by its "reference:PATH" name
// and contents, wherever the folder is; another contents gives another key, and no folder an
// error wrapping refdata.ErrMissing.
func TestKeyOfReferenceFiles(t *testing.T) {
	key := func(refRoot string) (string, error) {
		t.Setenv(refdata.Env, refRoot)
		in := newInputs(t.TempDir(), "1")
		if err := in.addReference("data"); err != nil {
			return "", err
		}
		return in.key(), nil
	}
	folder := func(text string) string {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data", "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "sub", "a"), []byte(text), 0o644))
		return dir
	}
	first, err := key(folder("one"))
	require.NoError(t, err)
	again, err := key(folder("one"))
	require.NoError(t, err)
	assert.Equal(t, first, again, "the same files in another folder")
	other, err := key(folder("two"))
	require.NoError(t, err)
	assert.NotEqual(t, first, other, "other contents")
	_, err = key(filepath.Join(t.TempDir(), "none"))
	require.ErrorIs(t, err, refdata.ErrMissing)
}
