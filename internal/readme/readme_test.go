// Package readme holds the test that runs the README's commands verbatim, from a copy of the
// checkout, so that what a newcomer copies works.
package readme

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testtools"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	require.NoError(t, err)
	return root
}

// runnable names the commands the README shows that this test runs: the project's binaries,
// the pinned tools and the make targets that neither recurse into the tests nor take minutes.
var (
	runnable    = regexp.MustCompile(`^(bin/odlm-render(-fn)? |\.cache/tools/bin/(kustomize|kpt) |make )`)
	makeTargets = map[string]bool{"build": true, "tools": true, "example": true, "help": true, "install": true}
	placeholder = regexp.MustCompile(`(^|[\s=(])[A-Z][A-Z_]+(\.\.\.)?($|[\s)])`)
	inlineCode  = regexp.MustCompile("`([^`]+)`")
)

// commands returns the README's commands: the lines of its indented code blocks (joined at
// trailing backslashes) and the table cells that hold a command.
func commands(readme string) []string {
	var out []string
	fenced := false
	var pending string
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if pending != "" {
			pending += " " + strings.TrimSpace(line)
			if !strings.HasSuffix(pending, "\\") {
				out = append(out, pending)
				pending = ""
			} else {
				pending = strings.TrimSuffix(pending, "\\")
			}
			continue
		}
		if strings.HasPrefix(line, "|") {
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				if strings.HasPrefix(m[1], "make ") {
					out = append(out, m[1])
				}
			}
			continue
		}
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		cmd := strings.TrimSpace(line)
		if !runnable.MatchString(cmd) {
			continue
		}
		if strings.HasSuffix(cmd, "\\") {
			pending = strings.TrimSuffix(cmd, "\\")
			continue
		}
		out = append(out, cmd)
	}
	return out
}

// skipReason says why a command is not run ("" to run it).
func skipReason(cmd string) string {
	words := strings.Fields(strings.Split(cmd, "#")[0])
	switch {
	case strings.Contains(cmd, "[") || placeholder.MatchString(strings.Split(cmd, "#")[0]):
		return "a synopsis with placeholders"
	case strings.Contains(cmd, "--live"):
		return "needs a cluster (live reads are tested against a real kube-apiserver in internal/cli)"
	case words[0] == "make":
		for _, w := range words[1:] {
			if w == "&&" {
				break
			}
			if !makeTargets[w] {
				return "make " + w + " is not run from here (the tests, or minutes of work)"
			}
		}
	}
	return ""
}

// workspace is a copy of the checkout made of links (examples/ copied), with bin/ empty and
// the pinned tools shared, so that commands that write (catalog-snapshot.yaml, odlm.yaml)
// write there.
func workspace(t *testing.T, root string) string {
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		switch e.Name() {
		case "bin", ".cache", ".git", "odlm-rendered":
			continue
		case "examples":
			// copied: kustomize resolves a function's relative path (../../bin/…) from the
			// kustomization's real folder, which must be this workspace's
			require.NoError(t, os.CopyFS(filepath.Join(dir, e.Name()), os.DirFS(filepath.Join(root, e.Name()))))
			continue
		}
		require.NoError(t, os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".cache"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, ".cache", "tools"), filepath.Join(dir, ".cache", "tools")))
	return dir
}

func TestREADMECommandsRunVerbatim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs every command")
	}
	root := repoRoot(t)
	testtools.Tool(t, "kustomize") // skips (or fails under ODLM_RENDER_REQUIRE_TOOLS=1) without the pinned tools
	testtools.Tool(t, "kpt")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	cmds := commands(string(readme))
	dir := workspace(t, root)
	ran := 0
	for _, cmd := range cmds {
		if why := skipReason(cmd); why != "" {
			t.Logf("not run (%s): %s", why, cmd)
			continue
		}
		ran++
		t.Run(cmd, func(t *testing.T) {
			c := exec.Command("bash", "-euo", "pipefail", "-c", cmd)
			c.Dir = dir
			c.Env = append(os.Environ(), "GOBIN="+filepath.Join(dir, "gobin"), "MAKEFLAGS=")
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			start := time.Now()
			err := c.Run()
			tail := out.String()
			if len(tail) > 3000 {
				tail = "…" + tail[len(tail)-3000:]
			}
			require.NoError(t, err, "README command failed after %s:\n%s\n%s", time.Since(start).Round(time.Millisecond), cmd, tail)
		})
	}
	require.GreaterOrEqual(t, ran, 15, "the README's commands were found (%d in all)", len(cmds))
}
