package fileread_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a FIFO does not block", fifo, "not a regular file (a FIFO)"},
		{"a link to /dev/zero is not read", zero, "not a regular file (a character device)"},
		{"a folder", dir, "not a regular file (a folder)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := fileread.ReadFile(tc.path); done <- err }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.path)
				assert.Contains(t, err.Error(), tc.want)
				assert.True(t, fileread.IsLimit(err))
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
		})
	}
}

func TestReadFileCapsTheSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("a", 2048)), 0o600))
	_, err := fileread.ReadFileMax(p, 1024)
	require.Error(t, err)
	assert.Contains(t, err.Error(), p+": larger than 1Ki")
	assert.Contains(t, err.Error(), fileread.EnvMaxBytes)
	data, err := fileread.ReadFileMax(p, 2048)
	require.NoError(t, err)
	assert.Len(t, data, 2048)

	t.Setenv(fileread.EnvMaxBytes, "1Ki")
	_, err = fileread.ReadFile(p)
	require.ErrorContains(t, err, "larger than 1Ki")
	_, err = fileread.ReadAll("-", strings.NewReader(strings.Repeat("b", 1025)))
	require.ErrorContains(t, err, "-: larger than 1Ki")
}

func TestAnEndlessStreamStopsAtTheCap(t *testing.T) {
	t.Setenv(fileread.EnvMaxBytes, "64Ki")
	f, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer f.Close()
	_, err = fileread.ReadAll("stdin", f)
	require.ErrorContains(t, err, "stdin: larger than 64Ki")
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "1024", want: 1024},
		{in: "512Ki", want: 512 << 10},
		{in: "64Mi", want: 64 << 20},
		{in: "2Gi", want: 2 << 30},
		{in: "2G", bad: true},
		{in: "-1", bad: true},
		{in: "99999999999Gi", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			n, err := fileread.ParseSize(tc.in)
			if tc.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, n)
			assert.Equal(t, tc.want, mustParse(t, fileread.FormatSize(n)))
		})
	}
	t.Setenv(fileread.EnvMaxBytes, "lots")
	require.ErrorContains(t, fileread.CheckEnv(), `ODLM_RENDER_MAX_FILE_SIZE="lots"`)
	assert.Equal(t, fileread.DefaultMaxBytes, fileread.MaxBytes())
}

func mustParse(t *testing.T, s string) int64 {
	n, err := fileread.ParseSize(s)
	require.NoError(t, err)
	return n
}

func TestInsideFollowsLinks(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "a.yaml"), nil, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(other, "secret.yaml"), nil, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(other, "secret.yaml"), filepath.Join(root, "link.yaml")))
	require.NoError(t, os.Symlink(other, filepath.Join(root, "dir")))
	for _, tc := range []struct {
		path   string
		inside bool
	}{
		{filepath.Join(root, "sub", "a.yaml"), true},
		{filepath.Join(root, "sub"), true},
		{root, true},
		{filepath.Join(root, "sub", "..", "..", filepath.Base(other)), false},
		{filepath.Join(root, "link.yaml"), false},
		{filepath.Join(root, "dir", "secret.yaml"), false},
		{filepath.Join(root, "missing.yaml"), false},
		{other, false},
	} {
		assert.Equal(t, tc.inside, fileread.Inside(tc.path, root), tc.path)
	}
	assert.True(t, fileread.Inside(filepath.Join(root, "link.yaml"), root, other))
}
