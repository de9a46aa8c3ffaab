package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
)

const badDir = "../../testdata/bad"

// TestBadInputs runs every case of testdata/bad through the CLI, from inside the case
// folder so that paths in messages are relative to it: `odlm-render render input ARGS...`.
// A case is a folder with
//   - input/: the files rendered;
//   - args (optional): extra arguments, one per line, relative to the case folder;
//   - symlinks (optional): "LINK TARGET" per line, symlinks made for the run and removed after;
//   - code (optional): the expected exit status, 1 (errors) unless it says 2 (usage);
//   - expected: the exact error lines of stderr, in any order.
//
// Every expected line must be on stderr, and every stderr line that is not a warning or info
// must be expected. Stdout must be empty (no partial manifest set), and nothing may panic.
func TestBadInputs(t *testing.T) {
	cases, err := os.ReadDir(badDir)
	require.NoError(t, err)
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(badDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			args := []string{"render", "input"}
			args = append(args, readLines(t, filepath.Join(dir, "args"))...)
			want := 1
			if codes := readLines(t, filepath.Join(dir, "code")); len(codes) > 0 {
				want, err = strconv.Atoi(codes[0])
				require.NoError(t, err)
			}
			expected := readLines(t, filepath.Join(dir, "expected"))
			require.NotEmpty(t, expected, "a case needs an expected file")
			for _, l := range readLines(t, filepath.Join(dir, "symlinks")) {
				link, target, ok := strings.Cut(l, " ")
				require.True(t, ok, "symlinks line %q: want LINK TARGET", l)
				p := filepath.Join(dir, link)
				_ = os.Remove(p) // left over from an interrupted run
				require.NoError(t, os.Symlink(target, p))
				t.Cleanup(func() { _ = os.Remove(p) })
			}
			t.Chdir(dir)

			code, out, stderr := runNoPanic(t, args...)
			assert.Equal(t, want, code, stderr)
			assert.Empty(t, out, "nothing may be written to stdout on errors")
			got := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			for _, l := range expected {
				assert.Contains(t, got, l, "stderr:\n%s", stderr)
			}
			for _, l := range got {
				if strings.Contains(l, ": warning: ") || strings.Contains(l, ": info: ") {
					continue
				}
				assert.Contains(t, expected, l, "unexpected stderr line")
			}
		})
	}
	assert.GreaterOrEqual(t, n, 60, "the bad-input corpus shrank")
}

// TestBadSymlinkedFolderIsNotFollowed documents how symlinks in an input folder are read:
// a symlinked file is read like any other file (also when it points out of the folder, see
// testdata/bad/symlinked-file-outside-input-is-read), a symlinked folder is not entered
// (filepath.WalkDir does not follow it), so the broken file behind it is never read.
func TestBadSymlinkedFolderIsNotFollowed(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "input"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "outside"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "input", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "outside", "bad.yaml"), []byte("kind: [\n"), 0o644))
	require.NoError(t, os.Symlink("../outside", filepath.Join(tmp, "input", "dir")))

	code, out, stderr := runNoPanic(t, "render", filepath.Join(tmp, "input"))
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, out, "kind: ConfigMap")

	// Named explicitly, a symlinked folder is a PATH like any other and is read.
	code, out, stderr = runNoPanic(t, "render", filepath.Join(tmp, "input", "dir"))
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "bad.yaml:1: invalid YAML/JSON")
}

// runNoPanic is run, failing the test with the stack when the CLI panics.
func runNoPanic(t *testing.T, args ...string) (code int, out, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		code = cli.Main(args, strings.NewReader(""), &o, &e)
	}()
	return code, o.String(), e.String()
}

// readLines reads the non-empty lines of a file; a missing file has none.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err, fmt.Sprintf("reading %s", path))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}
