// Package testtools finds the external tools integration tests run (docker, and the
// pinned kustomize and kpt that scripts/tools.sh installs). A missing tool skips the test,
// unless ODLM_RENDER_REQUIRE_TOOLS=1 (set by CI: .ci/run) makes it a failure.
package testtools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// EnvRequire makes a missing tool a failure rather than a skip.
const EnvRequire = "ODLM_RENDER_REQUIRE_TOOLS"

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// repoRoot is the checkout this package is in.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Tool returns the path of a tool scripts/tools.sh installed into .cache/tools/bin.
func Tool(t testing.TB, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(repoRoot(), ".cache", "tools", "bin", name))
	require.NoError(t, err)
	if _, err := os.Stat(path); err != nil {
		missing(t, "%s is not installed (scripts/tools.sh installs it)", name)
	}
	return path
}

// Docker returns the docker CLI once a daemon answers (scripts/docker.sh start, then
// export DOCKER_HOST).
func Docker(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("docker")
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var out []byte
		out, err = exec.CommandContext(ctx, path, "version", "--format", "{{.Server.Version}}").CombinedOutput()
		if err == nil {
			return path
		}
		err = errors.New(strings.TrimSpace(string(out)))
	}
	missing(t, "docker is not available (scripts/docker.sh start, then export DOCKER_HOST): %v", err)
	return ""
}

// DockerRun runs the docker CLI and returns its stdout.
func DockerRun(t testing.TB, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(Docker(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "docker %s\n%s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}

// BuildImage builds a Dockerfile target offline from a binary (scripts/docker.sh build)
// under the given tag. The image the tag named before is removed when the build gives a
// new one, so that repeated runs leave nothing behind.
func BuildImage(docker, target, binary, tag string) error {
	old, _ := exec.Command(docker, "image", "inspect", "--format", "{{.Id}}", tag).Output()
	cmd := exec.Command("bash", filepath.Join(repoRoot(), "scripts", "docker.sh"), "build")
	cmd.Env = append(os.Environ(), "ODLM_RENDER_BINARY="+binary, "ODLM_RENDER_IMAGE="+tag, "ODLM_RENDER_TARGET="+target)
	if out, err := cmd.CombinedOutput(); err != nil {
		return errors.New(err.Error() + ": " + string(out))
	}
	now, err := exec.Command(docker, "image", "inspect", "--format", "{{.Id}}", tag).Output()
	if id := strings.TrimSpace(string(old)); err == nil && id != "" && id != strings.TrimSpace(string(now)) {
		_ = exec.Command(docker, "image", "rm", id).Run() // fails harmlessly while in use
	}
	return nil
}

// TreeFiles is every file under dir by its slash-separated path relative to dir, with its
// contents; each must be a regular file (not a link).
func TreeFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		require.True(t, d.Type().IsRegular(), "%s is a regular file, not a link", p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return out
}
