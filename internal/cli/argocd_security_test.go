package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// pwnKubeconfig writes a kubeconfig whose user runs an exec credential plugin that leaves a
// marker file, and returns the kubeconfig and the marker's path.
func pwnKubeconfig(t *testing.T, dir string) (kubeconfig, marker string) {
	t.Helper()
	marker = filepath.Join(t.TempDir(), "pwned")
	script := filepath.Join(dir, "pwn.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\necho '{}'\n"), 0o755))
	kubeconfig = filepath.Join(dir, "kubeconfig.yaml")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: attacker, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: `+script+`, interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: c, user: attacker}}]
current-context: c
`), 0o644))
	return kubeconfig, marker
}

// TestArgoCDPluginTenantsCannotRunCodeOrPickCredentials: the plugin runs in a sidecar shared
// by every tenant. A kubeconfig from the Application (its repository, its env or its
// parameters) ran its exec credential plugin in the sidecar; now the kubeconfig, the context
// and the live limits are the administrator's, --live is off unless the administrator allows
// it, and the administrator's kubeconfig may run a credential plugin only when allowed too.
func TestArgoCDPluginTenantsCannotRunCodeOrPickCredentials(t *testing.T) {
	t.Parallel()
	root := argoRepo(t)
	app := filepath.Join(root, "examples", "argocd", "platform")
	_, marker := pwnKubeconfig(t, app) // kubeconfig.yaml in the application's folder, as a tenant commits it
	adminKubeconfig, adminMarker := pwnKubeconfig(t, t.TempDir())
	catalog := `[{"name":"catalog","array":["../catalog"]}]`
	for _, tc := range []struct {
		name   string
		params string
		env    []string
		want   string
	}{
		{"kubeconfig in the plugin env", catalog, []string{"ARGOCD_ENV_LIVE=true", "ARGOCD_ENV_KUBECONFIG=kubeconfig.yaml"},
			`option "kubeconfig" is not an Application parameter`},
		{"kubeconfig as a parameter, live allowed", `[{"name":"catalog","array":["../catalog"]},{"name":"live","string":"true"},{"name":"kubeconfig","string":"kubeconfig.yaml"}]`,
			[]string{"ODLM_RENDER_ARGOCD_ALLOW_LIVE=true"}, `option "kubeconfig" is not an Application parameter`},
		{"kubeconfig as PARAM_", "", []string{"PARAM_CATALOG_0=../catalog", "PARAM_LIVE=true", "PARAM_KUBECONFIG=kubeconfig.yaml", "ODLM_RENDER_ARGOCD_ALLOW_LIVE=true"},
			`option "kubeconfig" is not an Application parameter`},
		{"context", catalog, []string{"ARGOCD_ENV_CONTEXT=other"}, `option "context" is not an Application parameter`},
		{"live limits", catalog, []string{"ARGOCD_ENV_LIVE_TIMEOUT=1h"}, `option "live-timeout" is not an Application parameter`},
		{"live when the administrator has not allowed it", catalog, []string{"ARGOCD_ENV_LIVE=true"},
			`option "live": reading the cluster is off in this sidecar (its administrator allows it with ODLM_RENDER_ARGOCD_ALLOW_LIVE=true)`},
		{"the administrator's kubeconfig runs no plugin unless allowed", catalog,
			[]string{"ARGOCD_ENV_LIVE=true", "ODLM_RENDER_ARGOCD_ALLOW_LIVE=true", "ODLM_RENDER_ARGOCD_KUBECONFIG=" + adminKubeconfig},
			`credential plugin`},
		{"the empty-render guard is not a parameter", `[{"name":"catalog","array":["../catalog"]},{"name":"fail-empty","string":"false"}]`, nil,
			`option "fail-empty" is not an Application parameter`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := generate(t, root, argoEnv(tc.params, tc.env...), "argocd-generate")
			require.Error(t, err)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tc.want)
			assert.NoFileExists(t, marker, "the tenant's credential plugin ran")
			assert.NoFileExists(t, adminMarker, "a credential plugin ran without the administrator's consent")
		})
	}

	// the administrator may allow their own kubeconfig's plugin: it runs (and this cluster
	// does not exist, so the render then fails on the connection)
	_, stderr, err := generate(t, root, argoEnv(catalog, "ARGOCD_ENV_LIVE=true", "ODLM_RENDER_ARGOCD_ALLOW_LIVE=true",
		"ODLM_RENDER_ARGOCD_KUBECONFIG="+adminKubeconfig, "ODLM_RENDER_ARGOCD_ALLOW_CREDENTIAL_PLUGINS=true"), "argocd-generate")
	require.Error(t, err)
	assert.NotContains(t, stderr, "credential plugin")
	assert.FileExists(t, adminMarker, "the administrator allowed the plugin: it ran")
}

// TestArgoCDPluginReadsOnlyTheApplicationsRepository: PARAM_SNAPSHOT=../other-tenant-repo
// copied another tenant's Secret into this Application's output. Every path a parameter
// names, and every link below it, must resolve inside the application's repository or a
// folder the administrator lists.
func TestArgoCDPluginReadsOnlyTheApplicationsRepository(t *testing.T) {
	t.Parallel()
	root := argoRepo(t)
	app := filepath.Join(root, "examples", "argocd", "platform")
	other := t.TempDir() // another tenant's checkout on the same repo-server
	require.NoError(t, os.WriteFile(filepath.Join(other, "secret.yaml"), []byte(
		"apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: other}\nstringData: {password: other-tenants-password}\n"), 0o644))
	rel, err := filepath.Rel(app, other)
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		params string
		env    []string
		setup  func(t *testing.T)
		want   string
	}{
		{"a snapshot path leaving the repository", `[{"name":"catalog","array":["../catalog"]},{"name":"snapshot","array":["` + rel + `"]}]`, nil, nil,
			`option "snapshot": ` + rel + `: resolves outside ` + root},
		{"an absolute catalog path", `[{"name":"catalog","array":["` + other + `"]}]`, nil, nil,
			`option "catalog": ` + other + `: resolves outside`},
		{"a named catalog's path leaving the repository", `[{"name":"catalog","array":["openshift-marketplace/redhat-operators=` + other + `"]}]`, nil, nil,
			`option "catalog": ` + other + `: resolves outside`},
		{"a snapshot in the repository linking out", `[{"name":"catalog","array":["../catalog"]},{"name":"snapshot","array":["snap"]}]`, nil,
			func(t *testing.T) {
				require.NoError(t, os.Mkdir(filepath.Join(app, "snap"), 0o755))
				require.NoError(t, os.Symlink(filepath.Join(other, "secret.yaml"), filepath.Join(app, "snap", "s.yaml")))
			}, `link ` + filepath.Join("snap", "s.yaml") + `: resolves outside`},
		{"a snapshot naming a link to a folder of the repository, whose files link out", `[{"name":"catalog","array":["../catalog"]},{"name":"snapshot","array":["snap"]}]`, nil,
			func(t *testing.T) {
				// the parameter's own link stays inside; the readers follow the links inside
				// the folder it points to, which the walk of the named path never enters
				inner := filepath.Join(root, "examples", "argocd", "inner") // in the repository, not below PATH
				require.NoError(t, os.Mkdir(inner, 0o755))
				require.NoError(t, os.Symlink(filepath.Join(other, "secret.yaml"), filepath.Join(inner, "s.yaml")))
				require.NoError(t, os.Symlink(inner, filepath.Join(app, "snap")))
			}, `s.yaml: resolves outside`},
		{"an input linking out", `[{"name":"catalog","array":["../catalog"]}]`, nil,
			func(t *testing.T) {
				require.NoError(t, os.Symlink(filepath.Join(other, "secret.yaml"), filepath.Join(app, "stolen.yaml")))
			}, `PATH .: link stolen.yaml: resolves outside`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
				t.Cleanup(func() {
					_ = os.RemoveAll(filepath.Join(app, "snap"))
					_ = os.RemoveAll(filepath.Join(root, "examples", "argocd", "inner"))
					_ = os.Remove(filepath.Join(app, "stolen.yaml"))
				})
			}
			out, stderr, err := generate(t, root, argoEnv(tc.params, tc.env...), "argocd-generate")
			require.Error(t, err)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr+out, "other-tenants-password")
		})
	}

	// a folder the administrator lists may be read
	out, stderr, err := generate(t, root, argoEnv(`[{"name":"catalog","array":["../catalog"]},{"name":"snapshot","array":["`+rel+`"]}]`,
		"ODLM_RENDER_ARGOCD_READ_PATHS=/nonexistent:"+other), "argocd-generate")
	require.NoError(t, err, stderr)
	assert.NotEmpty(t, out)
}

// TestSidecarPatchNamesEverySetting: deploy/argocd/repo-server-sidecar.yaml shows an
// administrator every setting of the sidecar, and nothing the CLI does not read.
func TestSidecarPatchNamesEverySetting(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../deploy/argocd/repo-server-sidecar.yaml")
	require.NoError(t, err)
	objs, err := manifest.Decode("repo-server-sidecar.yaml", b)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	containers, _ := manifest.Get(objs[0].Map, "spec", "template", "spec", "containers").([]any)
	require.Len(t, containers, 1)
	var names []string
	env, _ := containers[0].(map[string]any)["env"].([]any)
	for _, e := range env {
		names = append(names, e.(map[string]any)["name"].(string))
	}
	assert.ElementsMatch(t, []string{cli.EnvArgoAllowLive, cli.EnvArgoKubeconfig, cli.EnvArgoAllowCredentialPlugins,
		cli.EnvArgoReadPaths, fileread.EnvMaxBytes, fileread.EnvMaxTotalBytes}, names)
}
