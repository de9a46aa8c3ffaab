// Package readme holds the tests of the project's documentation: every command of the README
// and of each docs/*.md page runs verbatim, from a copy of the checkout, so that what a
// newcomer copies works; and every relative link of those pages and ARCHITECTURE.md resolves.
package readme

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	require.NoError(t, err)
	return root
}

// runnable names the commands the pages show that this test runs: the project's binaries,
// the pinned tools and the make targets that neither recurse into the tests nor take minutes,
// after any NAME=value assignments.
var (
	runnable    = regexp.MustCompile(`^(bin/odlm-render(-fn)? |\.cache/tools/bin/(kustomize|kpt) |make )`)
	assignment  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*=\S*\s+`)
	makeTargets = map[string]bool{"build": true, "tools": true, "example": true, "help": true, "install": true}
	placeholder = regexp.MustCompile(`(^|[\s=(])[A-Z][A-Z_]+(\.\.\.)?($|[\s)])`)
	inlineCode  = regexp.MustCompile("`([^`]+)`")
)

// referenceData marks a command that reads the reference-data folder (internal/refdata).
const referenceData = "$" + refdata.Env

// withoutAssignments returns cmd without its leading NAME=value environment assignments.
func withoutAssignments(cmd string) string {
	for {
		loc := assignment.FindStringIndex(cmd)
		if loc == nil {
			return cmd
		}
		cmd = cmd[loc[1]:]
	}
}

// commands returns a page's commands: the lines of its indented code blocks (joined at
// trailing backslashes) and the table cells that hold a make command.
func commands(page string) []string {
	var out []string
	fenced := false
	var pending string
	for _, line := range strings.Split(page, "\n") {
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
		if !runnable.MatchString(withoutAssignments(cmd)) {
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
	code := withoutAssignments(strings.Split(cmd, "#")[0])
	words := strings.Fields(code)
	switch {
	case strings.Contains(cmd, "[") || placeholder.MatchString(code):
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

// pages returns the documents whose commands run: the README first (its make commands build
// the binaries the others call), then docs/*.md in name order.
func pages(t *testing.T, root string) []string {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	out := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		require.NoError(t, err)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// workspace is a copy of the checkout made of links (examples/ copied), with bin/ empty and
// the pinned tools shared, so that commands that write (catalog-snapshot.yaml, odlm.yaml,
// mirror/) write there.
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

// run runs cmd in dir with env and fails t with the output's tail when it fails.
func run(t *testing.T, dir string, env []string, page, cmd string) {
	t.Helper()
	c := exec.Command("bash", "-euo", "pipefail", "-c", cmd)
	c.Dir = dir
	c.Env = env
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	start := time.Now()
	err := c.Run()
	tail := out.String()
	if len(tail) > 3000 {
		tail = "…" + tail[len(tail)-3000:]
	}
	require.NoError(t, err, "%s: command failed after %s:\n%s\n%s", page, time.Since(start).Round(time.Millisecond), cmd, tail)
}

// TestREADMECommandsRunVerbatim runs every command of the README and of docs/*.md (one
// subtest per page, then per command), in one workspace, in page order. Commands that read
// the reference-data folder ("$ODLM_RENDER_REFERENCE_DATA"/…) skip without it; the README
// must hold none, since its commands must run on a fresh clone.
func TestREADMECommandsRunVerbatim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs every command")
	}
	root := repoRoot(t)
	testtools.Tool(t, "kustomize") // skips (or fails under ODLM_RENDER_REQUIRE_TOOLS=1) without the pinned tools
	testtools.Tool(t, "kpt")
	dir := workspace(t, root)
	env := append(os.Environ(), "GOBIN="+filepath.Join(dir, "gobin"), "MAKEFLAGS=")
	reference, refErr := refdata.Root()
	if refErr == nil {
		env = append(env, refdata.Env+"="+reference)
	}
	ran, found := 0, 0
	for _, page := range pages(t, root) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
		require.NoError(t, err)
		cmds := commands(string(data))
		found += len(cmds)
		t.Run(page, func(t *testing.T) {
			if page != "README.md" {
				// the README's make commands build the binaries; without them (-run picked
				// this page alone) build them here
				for _, bin := range []string{"odlm-render", "odlm-render-fn"} {
					if _, err := os.Stat(filepath.Join(dir, "bin", bin)); errors.Is(err, os.ErrNotExist) {
						run(t, dir, env, page, "make build")
						break
					}
				}
			}
			for _, cmd := range cmds {
				if page == "README.md" {
					require.NotContains(t, cmd, referenceData, "README.md: its commands must run on a fresh clone, without the reference data: move this one to a docs page")
				}
				if why := skipReason(cmd); why != "" {
					t.Logf("not run (%s): %s", why, cmd)
					continue
				}
				ran++
				t.Run(cmd, func(t *testing.T) {
					if strings.Contains(cmd, referenceData) && refErr != nil {
						refdata.Skip(t, refErr)
					}
					run(t, dir, env, page, cmd)
				})
			}
		})
	}
	require.GreaterOrEqual(t, ran, 40, "the pages' commands were found (%d in all)", found)
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// slugDrop is what GitHub leaves out of a heading's anchor: punctuation but '-' and '_'
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
)

// anchors returns the anchors GitHub gives a Markdown page's headings (lower case,
// punctuation dropped, spaces as '-', a repeated one numbered).
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// TestDocsLinksResolve checks that every relative link of the README, ARCHITECTURE.md and
// docs/*.md names a file or folder of the checkout, and a link into a Markdown page (or
// within one) a heading that page has.
func TestDocsLinksResolve(t *testing.T) {
	root := repoRoot(t)
	files := append(pages(t, root), "ARCHITECTURE.md")
	for _, page := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
		require.NoError(t, err)
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
				continue
			}
			if fenced {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := filepath.Join(root, filepath.FromSlash(page))
				if path != "" {
					file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					_, err := os.Stat(file)
					if !assertNoError(t, err, "%s:%d: link %s: no such file", page, i+1, target) {
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				body, err := os.ReadFile(file)
				require.NoError(t, err)
				if !anchors(string(body))[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", page, i+1, target, filepath.Base(file), anchor)
				}
			}
		}
	}
}

func assertNoError(t *testing.T, err error, format string, args ...any) bool {
	t.Helper()
	if err != nil {
		t.Errorf(format, args...)
		return false
	}
	return true
}

func TestAnchorsAsGitHubWritesThem(t *testing.T) {
	got := anchors("# Catalogs (`odlm-render catalog extract`)\n## `--no-olm` and `--olm none`\n" +
		"## 9. Decided deviations\n```\n# not a heading\n```\n## Bundle contents: the CRDs the render checks against\n" +
		"### Objects\n### Objects\n")
	require.Equal(t, map[string]bool{
		"catalogs-odlm-render-catalog-extract":               true,
		"--no-olm-and---olm-none":                            true,
		"9-decided-deviations":                               true,
		"bundle-contents-the-crds-the-render-checks-against": true,
		"objects":   true,
		"objects-1": true,
	}, got)
}
