package fbc_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// TestCatalogFilesThatAreNotFiles: a catalog folder or file given by an untrusted repository
// may hold links to devices and FIFOs; loading it is an error naming the file, quickly, never
// an endless or blocked read.
func TestCatalogFilesThatAreNotFiles(t *testing.T) {
	pkgBlob := []byte(`{"schema":"olm.package","name":"p","defaultChannel":"c"}` + "\n")
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to load
		want  string
	}{
		{"a catalog path linked to /dev/zero", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "zero.json")
			require.NoError(t, os.Symlink("/dev/zero", p))
			return p
		}, "zero.json: not a regular file (a character device)"},
		{"a file in a catalog folder linked to /dev/zero", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), pkgBlob, 0o600))
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
			return dir
		}, "zero.yaml: not a regular file (a character device)"},
		{"a FIFO in a catalog folder", func(t *testing.T, dir string) string {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "x.yaml"), 0o600))
			return dir
		}, "x.yaml: not a regular file (a FIFO)"},
		{"an .indexignore linked to /dev/urandom", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), pkgBlob, 0o600))
			require.NoError(t, os.Symlink("/dev/urandom", filepath.Join(dir, ".indexignore")))
			return dir
		}, ".indexignore: not a regular file (a character device)"},
		{"an .indexignore that is a FIFO", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), pkgBlob, 0o600))
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, ".indexignore"), 0o600))
			return dir
		}, ".indexignore: not a regular file (a FIFO)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, t.TempDir())
			done := make(chan error, 1)
			go func() { _, err := fbc.Load(path); done <- err }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			case <-time.After(10 * time.Second):
				t.Fatal("loading the catalog did not end")
			}
		})
	}
}
