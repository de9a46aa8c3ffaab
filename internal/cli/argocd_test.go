package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testtools"
)

var (
	cliOnce sync.Once
	cliBin  string
	cliErr  error
)

// cliBinary builds cmd/odlm-render once, for tests that run it as Argo CD's cmp-server does.
func cliBinary(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "odlm-render-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliBin = filepath.Join(dir, "odlm-render")
		build := exec.Command("go", "build", "-o", cliBin, "../../cmd/odlm-render")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static: it also runs in a scratch image
		out, err := build.CombinedOutput()
		if err != nil {
			cliErr = err
			cliBin = string(out)
		}
	})
	require.NoError(t, cliErr, cliBin)
	return cliBin
}

// argoRepo copies the example repository the way Argo CD's repo-server streams it to the
// plugin: every file with mode 0644 (executable bits are not preserved).
func argoRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := "../../examples/argocd"
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, "examples", "argocd", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	}))
	return root
}

// argoEnv is the environment Argo CD's cmp-server gives the generate command.
func argoEnv(params string, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"ARGOCD_APP_NAME=platform-operators", "ARGOCD_APP_NAMESPACE=platform", "ARGOCD_APP_PROJECT_NAME=default",
		"ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567", "ARGOCD_APP_REVISION_SHORT=0123456",
		"ARGOCD_APP_REVISION_SHORT_8=01234567", "ARGOCD_APP_SOURCE_REPO_URL=https://git.example.com/platform/gitops.git",
		"ARGOCD_APP_SOURCE_PATH=examples/argocd/platform", "ARGOCD_APP_SOURCE_TARGET_REVISION=main",
		"KUBE_VERSION=1.33.4", "KUBE_API_VERSIONS=v1,apps/v1,operators.coreos.com/v1alpha1",
		"ARGOCD_APP_PARAMETERS=" + params,
	}, extra...)
}

func generate(t *testing.T, root string, env []string, command ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(cliBinary(t), command...)
	cmd.Dir = filepath.Join(root, "examples", "argocd", "platform")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// pluginCommand reads a command of deploy/argocd/plugin.yaml.
func pluginSpec(t *testing.T) (generate, discover []string, params []string) {
	t.Helper()
	b, err := os.ReadFile("../../deploy/argocd/plugin.yaml")
	require.NoError(t, err)
	var p struct {
		Spec struct {
			Generate struct{ Command []string } `yaml:"generate"`
			Discover struct {
				Find struct{ Command []string } `yaml:"find"`
			} `yaml:"discover"`
			Parameters struct {
				Static []struct{ Name string } `yaml:"static"`
			} `yaml:"parameters"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(b, &p))
	for _, s := range p.Spec.Parameters.Static {
		params = append(params, s.Name)
	}
	return p.Spec.Generate.Command, p.Spec.Discover.Find.Command, params
}

func TestArgoCDPluginGenerate(t *testing.T) {
	t.Parallel()
	gen, _, _ := pluginSpec(t)
	require.Equal(t, "odlm-render", gen[0])
	root := argoRepo(t)
	params := `[{"array":["../catalog"],"name":"catalog"},{"name":"bindinfo-secrets","string":"external-secrets"}]`
	out, stderr, err := generate(t, root, argoEnv(params, "PARAM_CATALOG_0=../catalog", "PARAM_BINDINFO_SECRETS=external-secrets"), gen[1:]...)
	require.NoError(t, err, stderr)
	objs, err := manifest.Decode("stdout", []byte(out))
	require.NoError(t, err, "stdout must be a plain YAML stream of objects")
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Kind()]++
		assert.NotEqual(t, "ResourceList", o.Kind())
	}
	assert.Equal(t, 2, kinds["Subscription"])
	assert.Contains(t, out, `argocd.argoproj.io/sync-wave: "3"`, "ordering defaults to argocd in the plugin")
	assert.Contains(t, out, "SkipDryRunOnMissingResource=true")
}

func TestArgoCDPluginEnvAndParameters(t *testing.T) {
	t.Parallel()
	root := argoRepo(t)
	// plugin env instead of parameters; a parameter wins over env
	out, stderr, err := generate(t, root, argoEnv(`[{"name":"ordering","string":"kpt"}]`, "ARGOCD_ENV_CATALOG=../catalog", "ARGOCD_ENV_ORDERING=argocd"), "argocd-generate")
	require.NoError(t, err, stderr)
	assert.Contains(t, out, "config.kubernetes.io/depends-on")
	assert.NotContains(t, out, "argocd.argoproj.io/sync-wave")

	// PARAM_* alone (an older Argo CD, or a wrapper that sets only those)
	out, stderr, err = generate(t, root, argoEnv("", "PARAM_CATALOG_0=../catalog", "PARAM_ORDERING=kpt"), "argocd-generate")
	require.NoError(t, err, stderr)
	assert.Contains(t, out, "config.kubernetes.io/depends-on")

	_, stderr, err = generate(t, root, argoEnv(`[{"name":"nonsense","string":"x"}]`, "ARGOCD_ENV_CATALOG=../catalog"), "argocd-generate")
	require.Error(t, err)
	assert.Contains(t, stderr, `unknown option "nonsense"`)

	_, stderr, err = generate(t, root, argoEnv(`{not json`), "argocd-generate")
	require.Error(t, err)
	assert.Contains(t, stderr, "ARGOCD_APP_PARAMETERS")
}

func TestArgoCDPluginFailsInsteadOfPruningEverything(t *testing.T) {
	t.Parallel()
	root := argoRepo(t)
	// no catalog: the configured operand specs need one, so the render fails
	out, stderr, err := generate(t, root, argoEnv("null"), "argocd-generate")
	require.Error(t, err)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "give a catalog")

	// an application path with nothing to render
	empty := filepath.Join(root, "examples", "argocd", "platform")
	for _, e := range mustReadDir(t, empty) {
		require.NoError(t, os.Remove(filepath.Join(empty, e)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(empty, "README.md"), []byte("nothing here\n"), 0o644))
	out, stderr, err = generate(t, root, argoEnv("null"), "argocd-generate")
	require.Error(t, err)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "no objects")
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestArgoCDPluginDiscover(t *testing.T) {
	t.Parallel()
	_, discover, _ := pluginSpec(t)
	root := argoRepo(t)
	require.Equal(t, "odlm-render", discover[0])
	run := func(dir string) (string, error) {
		cmd := exec.Command(cliBinary(t), discover[1:]...)
		cmd.Dir = dir
		out, err := cmd.Output()
		return string(out), err
	}
	out, err := run(filepath.Join(root, "examples", "argocd", "platform"))
	require.NoError(t, err)
	assert.NotEmpty(t, strings.TrimSpace(out), "an application with ODLM inputs is discovered")
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o644))
	out, _ = run(other)
	assert.Empty(t, strings.TrimSpace(out), "other applications are not")
}

func TestArgoCDPluginAnnouncesEveryOption(t *testing.T) {
	t.Parallel()
	_, _, announced := pluginSpec(t)
	code, _, stderr := run(t, "", "argocd-generate", "--help")
	require.Equal(t, 0, code, stderr)
	// every render flag an Application may set is announced in plugin.yaml, and nothing else:
	// not the sidecar's own settings (credentials, live read limits, safety switches)
	adminOnly := map[string]bool{"kubeconfig": true, "context": true, "live-timeout": true, "live-deadline": true}
	_, help, _ := run(t, "", "render", "--help")
	var flags []string
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "-") {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(line, "-o, "), strings.SplitN(line, "--", 2)[0]))[0]
		f = strings.TrimPrefix(f, "--")
		if f != "output" && f != "help" && !adminOnly[f] {
			flags = append(flags, f)
		}
	}
	sort.Strings(flags)
	sort.Strings(announced)
	assert.Equal(t, flags, announced)
}

// TestArgoCDSidecarImage builds the Dockerfile's argocd-cmp target (offline, from the CLI
// built for this test) and runs the plugin's commands in it the way the sidecar does: as
// user 999, no network, cwd = the application's path in a read-only copy of the repository.
func TestArgoCDSidecarImage(t *testing.T) {
	t.Parallel()
	docker := testtools.Docker(t)
	const tag = "localhost/odlm-render-cmp:gotest"
	require.NoError(t, testtools.BuildImage(docker, "argocd-cmp", cliBinary(t), tag))
	root := argoRepo(t)
	base := []string{"run", "--rm", "--network", "none", "--user", "999:999", "--read-only",
		"-v", root + ":/repo:ro", "-w", "/repo/examples/argocd/platform"}
	gen, discover, _ := pluginSpec(t)

	out := testtools.DockerRun(t, append(base, tag, discover[1])...)
	assert.Equal(t, "odlm-render\n", out, "discovery needs no shell in the image")

	var env []string
	for _, e := range argoEnv(`[{"array":["../catalog"],"name":"catalog"}]`) {
		if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "HOME=") {
			env = append(env, "-e", e)
		}
	}
	args := append(append(append([]string{}, base...), env...), tag)
	out = testtools.DockerRun(t, append(args, gen[1:]...)...)
	objs, err := manifest.Decode("stdout", []byte(out))
	require.NoError(t, err)
	assert.NotEmpty(t, objs)
	assert.Contains(t, out, "kind: Subscription")

	// the plugin configuration is where cmp-server reads it
	id := strings.TrimSpace(testtools.DockerRun(t, "create", tag))
	defer testtools.DockerRun(t, "rm", id)
	tarball := testtools.DockerRun(t, "cp", id+":/home/argocd/cmp-server/config/plugin.yaml", "-")
	assert.Contains(t, tarball, "command: [odlm-render, argocd-generate]")
}
