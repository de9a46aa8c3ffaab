package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteFileAtomicReplacesOnlyRegularFiles: `catalog extract -o /dev/null` as root replaced
// /dev/null with a regular file (a temporary file renamed over it). Only new paths and
// regular files are replaced; a device or a FIFO is written in place, a link keeps pointing
// where it did, a folder is refused.
func TestWriteFileAtomicReplacesOnlyRegularFiles(t *testing.T) {
	t.Parallel()
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	dir := t.TempDir()

	t.Run("a character device stays a device", func(t *testing.T) {
		// a link to /dev/null, which the old code replaced as it replaced /dev/null itself
		// (never /dev/null here: a regression would break the machine the tests run on)
		target := filepath.Join(dir, "null")
		require.NoError(t, os.Symlink("/dev/null", target))
		require.NoError(t, writeFileAtomic(target, write("snapshot")))
		fi, err := os.Stat(target)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeCharDevice, "still a character device")
	})
	t.Run("a FIFO is written in place", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		got := make(chan []byte)
		go func() {
			f, err := os.Open(fifo)
			if !assert.NoError(t, err) {
				got <- nil
				return
			}
			b, _ := io.ReadAll(f)
			_ = f.Close()
			got <- b
		}()
		require.NoError(t, writeFileAtomic(fifo, write("through the pipe")))
		assert.Equal(t, "through the pipe", string(<-got))
		fi, err := os.Lstat(fifo)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeNamedPipe)
	})
	t.Run("a link to a regular file keeps the link and its mode", func(t *testing.T) {
		target := filepath.Join(dir, "real.yaml")
		require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
		link := filepath.Join(dir, "link.yaml")
		require.NoError(t, os.Symlink(target, link))
		require.NoError(t, writeFileAtomic(link, write("new")))
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink)
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "new", string(b))
		fi, err = os.Stat(target)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	})
	t.Run("a new path is created", func(t *testing.T) {
		p := filepath.Join(dir, "new.yaml")
		require.NoError(t, writeFileAtomic(p, write("x")))
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
	})
	t.Run("a folder is refused", func(t *testing.T) {
		require.ErrorContains(t, writeFileAtomic(dir, write("x")), "is a folder")
	})
}

// TestWriteFilesUndoesOnAFailedRename: when the rename of a later file fails, the files
// already swapped in are taken out and the earlier run's put back: the folder holds one run's
// files, never a mix.
func TestWriteFilesUndoesOnAFailedRename(t *testing.T) {
	dir := t.TempDir()
	old := map[string][]byte{"images.txt": []byte("old images\n"), "imageset-config.yaml": []byte("old isc\n")}
	require.NoError(t, writeFiles(dir, old, mirrorFileNames))
	renameFile = func(from, to string) error {
		if filepath.Base(to) == "imageset-config.yaml" {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	t.Cleanup(func() { renameFile = os.Rename })
	err := writeFiles(dir, map[string][]byte{"images.txt": []byte("new images\n"), "imageset-config.yaml": []byte("new isc\n")}, mirrorFileNames)
	require.ErrorContains(t, err, "injected failure")
	for name, want := range old {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no file set aside or written beside is left")
}
