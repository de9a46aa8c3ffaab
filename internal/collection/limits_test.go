package collection_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/collection"
	"github.com/odlm-render/odlm-render/internal/diag"
)

// zeros reads NUL bytes forever.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// exampleArchive builds the example collection as a gzipped tar in memory, with big (a
// member name) replaced by size NUL bytes: a few kB of gzip that unpack to size bytes.
func exampleArchive(t *testing.T, big string, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, size int64, r io.Reader) {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}))
		_, err := io.CopyN(tw, r, size)
		require.NoError(t, err)
	}
	fsys := os.DirFS(exampleDir)
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == big {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		add(p, int64(len(data)), bytes.NewReader(data))
		return err
	}))
	add(big, size, zeros{})
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// renderBounded renders p in a goroutine, failing the test if that takes more than 10 s
// (unblock, if set, is then called to let the render go), and returns the output and the
// bytes allocated meanwhile.
func renderBounded(t *testing.T, p string, unblock func()) (collection.Output, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	type result struct {
		out collection.Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := collection.Render(p, collection.Options{})
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		runtime.ReadMemStats(&after)
		require.NoError(t, r.err)
		return r.out, after.TotalAlloc - before.TotalAlloc
	case <-time.After(10 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatalf("rendering %s took more than 10 s", p)
		return collection.Output{}, 0
	}
}

// errorsOf lists the error results, as printed.
func errorsOf(rs diag.Results) []string {
	var out []string
	for _, r := range rs {
		if r.Severity == diag.Error {
			out = append(out, r.String())
		}
	}
	return out
}

// TestArchiveMemberOfZerosIsNotLoaded: a member that unpacks to 64 MiB of NUL bytes (64 kB
// of gzip) is not loaded into memory. Reading it is an error naming the archive, the member
// and the limit; a member nothing reads is no error.
func TestArchiveMemberOfZerosIsNotLoaded(t *testing.T) {
	const size = 64 << 20
	tests := []struct {
		member string
		want   string // the error result; "" for none
	}{
		{"operator-config.yml", "/operator-config.yml: read operator-config.yml: 67108864 bytes, over the 4 MiB limit on a file the check reads"},
		{"galaxy.yml", "/galaxy.yml: read galaxy.yml: 67108864 bytes, over the 4 MiB limit on a file the check reads"},
		{"playbooks/allocate.yml", "/playbooks/allocate.yml: read playbooks/allocate.yml: 67108864 bytes, over the 4 MiB limit on a file the check reads"},
		{"docs/big.bin", ""},
	}
	for _, tc := range tests {
		t.Run(tc.member, func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), "zosutils-datasets-1.0.0.tar.gz")
			require.NoError(t, os.WriteFile(archive, exampleArchive(t, tc.member, size), 0o644))
			out, allocated := renderBounded(t, archive, nil)
			if tc.want == "" {
				assert.Empty(t, errorsOf(out.Results))
			} else {
				assert.Equal(t, []string{filepath.ToSlash(archive) + tc.want}, errorsOf(out.Results))
			}
			assert.Less(t, allocated, uint64(size/4), "the member is not read into memory")
		})
	}
}

// copyExample copies the example collection into a new folder.
func copyExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(exampleDir)))
	return dir
}

// TestFolderReadsOnlyRegularFiles: in a collection folder, a file the check reads that is a
// FIFO (whose open waits for a writer), a link to /dev/zero (endless) or a 64 MiB file is
// an error naming the file, found at once and in bounded memory.
func TestFolderReadsOnlyRegularFiles(t *testing.T) {
	tests := []struct {
		name, file string
		make       func(t *testing.T, p string)
		want       string
	}{
		{"operator-config.yml is a FIFO", "operator-config.yml",
			func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) },
			"read operator-config.yml: not a regular file (a FIFO)"},
		{"galaxy.yml links to /dev/zero", "galaxy.yml",
			func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) },
			"read galaxy.yml: not a regular file (a character device)"},
		{"a playbook links to /dev/zero", "playbooks/allocate.yml",
			func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) },
			"read playbooks/allocate.yml: not a regular file (a character device)"},
		{"operator-config.yml has 64 MiB", "operator-config.yml",
			func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 64<<20)) }, // sparse: no disk used
			"read operator-config.yml: 67108864 bytes, over the 4 MiB limit on a file the check reads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExample(t)
			p := filepath.Join(dir, filepath.FromSlash(tc.file))
			if !strings.Contains(tc.name, "64 MiB") {
				require.NoError(t, os.Remove(p))
			}
			tc.make(t, p)
			unblock := func() { // a writer lets a blocked open of the FIFO go on
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_ = f.Close()
				}
			}
			out, allocated := renderBounded(t, dir, unblock)
			assert.Contains(t, errorsOf(out.Results), filepath.ToSlash(p)+": "+tc.want)
			assert.Less(t, allocated, uint64(16<<20))
		})
	}
}
