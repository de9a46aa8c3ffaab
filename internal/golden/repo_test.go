package golden_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoLargeTrackedFiles keeps binaries and build outputs out of git: no tracked file is over
// 1 MB, except real catalog data under testdata.
func TestNoLargeTrackedFiles(t *testing.T) {
	t.Parallel()
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	top := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", top, "ls-files", "-z").Output()
	require.NoError(t, err)
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(top, f))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 1<<20 {
			continue
		}
		catalogData := strings.HasPrefix(f, "testdata/") && strings.Contains(f, "catalog")
		assert.True(t, catalogData, "%s is %d bytes: binaries and build outputs do not belong in git", f, fi.Size())
	}
}
