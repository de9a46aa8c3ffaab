package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/fileread"
)

// TestRenderReadsNeitherFIFOsNorEndlessStreams: a FIFO named like a manifest in an input
// folder blocked the render forever, and an endless stdin ran it out of memory. Both are
// errors naming what was read, quickly, with nothing on stdout.
func TestRenderReadsNeitherFIFOsNorEndlessStreams(t *testing.T) {
	t.Setenv(fileread.EnvMaxBytes, "1Mi")
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "x.yaml"), 0o600))
	zero, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer zero.Close()
	for _, tc := range []struct {
		name  string
		args  []string
		stdin *os.File
		want  string
	}{
		{"a FIFO in an input folder", []string{"render", dir}, nil, filepath.Join(dir, "x.yaml") + ": not a regular file (a FIFO)"},
		{"an endless stdin", []string{"render", "-"}, zero, "stdin: larger than 1Mi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				in := tc.stdin
				if in == nil {
					in = zero
				}
				done <- cli.Main(tc.args, in, &stdout, &stderr)
			}()
			select {
			case code := <-done:
				assert.Equal(t, cli.ExitErrors, code)
				assert.Contains(t, stderr.String(), tc.want)
				assert.Empty(t, stdout.String())
			case <-time.After(10 * time.Second):
				t.Fatal("the render did not end")
			}
		})
	}
}
