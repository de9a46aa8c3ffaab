package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestPlanLiveMatchesTheSnapshot applies the cluster of the plan case
// koku-several-versions-behind (an ODLM-labelled Subscription whose status names the
// installed CSV, and that CSV) to the test kube-apiserver, in a fresh namespace, with OLM's
// CRDs, and checks that `plan --live` reports for its operator what `plan --snapshot` reports
// for the same objects: from, to, the path, the permissions and the objects of that namespace.
func TestPlanLiveMatchesTheSnapshot(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	crds, err := os.ReadFile(installedData + "/_live/olm-crds.yaml")
	require.NoError(t, err)
	c.Apply(t, string(crds))

	dir := "../../testdata/plan/koku-several-versions-behind"
	rename := map[string]string{"costs": c.Namespace(t)}
	write := func(paths []string, name string) (string, []*manifest.Object) {
		docs, err := inputs.ReadPaths(paths, nil)
		require.NoError(t, err)
		var objs []*manifest.Object
		for _, o := range docs {
			objs = append(objs, manifest.New(renameNamespaces(o.Map, rename).(map[string]any)))
		}
		var buf bytes.Buffer
		require.NoError(t, manifest.WriteYAML(&buf, objs))
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return path, objs
	}
	input, _ := write([]string{dir + "/input"}, "input.yaml")
	snapshot, cluster := write([]string{dir + "/snapshot"}, "snapshot.yaml")
	applyWithStatus(t, c, cluster)

	plan := func(args ...string) map[string]any {
		t.Helper()
		code, out, stderr := runCLI(t, "", append([]string{"plan", input, "--catalog", "../../testdata/catalogs-upgrade/community-v4.20/koku-metrics-operator", "-o", "json"}, args...)...)
		require.Equal(t, ExitOK, code, stderr)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m), out)
		return m
	}
	want := plan("--snapshot", snapshot)
	got := plan("--live", "--kubeconfig", c.AdminKubeconfig())
	require.NotEmpty(t, want["operators"])
	assert.Equal(t, want["operators"], got["operators"], "the operator: from, to, path, CRDs, permissions")
	// objects of the fresh namespace only: the cluster holds other tests' objects too
	ours := func(m map[string]any) map[string][]any {
		out := map[string][]any{}
		objects, _ := m["objects"].(map[string]any)
		for _, section := range []string{"added", "changed", "removed"} {
			list, _ := objects[section].([]any)
			for _, o := range list {
				if manifest.Get(o, "namespace") == rename["costs"] {
					out[section] = append(out[section], o)
				}
			}
		}
		return out
	}
	assert.Equal(t, ours(want), ours(got), "the objects of the case's namespace")
	assert.NotEmpty(t, ours(want)["changed"], "the Subscription the render changes")
}
