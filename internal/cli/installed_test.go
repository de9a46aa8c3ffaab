package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

const installedData = "../../testdata/installed"

// runInstalledCmd runs `odlm-render installed ARGS` in-process through Main.
func runInstalledCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, stdin, append([]string{"installed"}, args...)...)
}

type installedCase struct {
	Args []string `yaml:"args"`
}

// TestInstalledGoldenCases runs every testdata/installed/<case>/case.yaml (folders starting
// with "_" hold shared snapshots and rendered sets) from its folder and compares stdout,
// stderr and the exit status with expected/. `go test ./pkg/cli/ -run Installed -update`
// rewrites them.
func TestInstalledGoldenCases(t *testing.T) {
	root, err := filepath.Abs(installedData)
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		n++
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "case.yaml"))
			require.NoError(t, err)
			var c installedCase
			require.NoError(t, yaml.Unmarshal(b, &c))
			require.NotEmpty(t, c.Args)
			t.Chdir(dir)
			code, out, stderr := runInstalledCmd(t, "", c.Args...)
			got := map[string]string{"stdout.txt": out, "stderr.txt": stderr, "exit.txt": strconv.Itoa(code) + "\n"}
			expected := filepath.Join(dir, "expected")
			if *golden.Update {
				require.NoError(t, os.RemoveAll(expected))
				require.NoError(t, os.MkdirAll(expected, 0o755))
				for name, content := range got {
					require.NoError(t, os.WriteFile(filepath.Join(expected, name), []byte(content), 0o644))
				}
				return
			}
			for name, content := range got {
				want, err := os.ReadFile(filepath.Join(expected, name))
				require.NoError(t, err, "run with -update and read the result")
				assert.Equal(t, string(want), content, name)
			}
			if code != ExitOK && !strings.Contains(e.Name(), "fail-on-drift") {
				assert.Empty(t, out, "nothing on stdout when anything fails (but a drift report)")
			}
		})
	}
	assert.GreaterOrEqual(t, n, 10)
}

func TestInstalledUsageErrors(t *testing.T) {
	t.Parallel()
	snap := installedData + "/_snapshots/openshift"
	rendered := installedData + "/_rendered"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"-A"}, "installed needs --snapshot PATH or --live"},
		{"both sources", []string{"--snapshot", snap, "--live", "-A"}, "--snapshot and --live are exclusive"},
		{"positional argument", []string{snap, "-A"}, "installed takes no PATH arguments"},
		{"-n and -A", []string{"--snapshot", snap, "-n", "x", "-A"}, "-n and -A are exclusive"},
		{"snapshot without a namespace", []string{"--snapshot", snap}, "with --snapshot, give -n NS or -A"},
		{"unknown output", []string{"--snapshot", snap, "-A", "-o", "json"}, `-o must be table or yaml, not "json"`},
		{"fail-on-drift alone", []string{"--snapshot", snap, "-A", "--fail-on-drift"}, "--fail-on-drift goes with --against"},
		{"-A with --against", []string{"--snapshot", snap, "--against", rendered, "-A"}, "-A does not apply with --against"},
		{"kubeconfig without live", []string{"--snapshot", snap, "-A", "--kubeconfig", "x"}, "--kubeconfig and --context only apply with --live"},
		{"stdin twice", []string{"--snapshot", "-", "--against", "-"}, `stdin ("-") can be read only once`},
		{"unknown flag", []string{"--snapshot", snap, "-A", "--nope"}, "unknown flag: --nope"},
		{"no deadline", []string{"--live", "-A", "--live-deadline", "0s"}, "--live-deadline must be more than 0 (got 0s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runInstalledCmd(t, "", tc.args...)
			assert.Equal(t, ExitUsage, code, stderr)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestInstalledLiveDeadlineBoundsTheWholeRead: an API server (untrusted: the Argo CD sidecar
// is shared by every tenant) answering each page within --live-timeout but paging forever
// holds `installed --live` no longer than --live-deadline.
func TestInstalledLiveDeadlineBoundsTheWholeRead(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := requests.Add(1)
		cont := fmt.Sprintf("page-%d", n)
		if n >= 100 { // so that a test of unfixed code ends
			cont = ""
		}
		time.Sleep(100 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"SubscriptionList","metadata":{"continue":%q},"items":[]}`, cont)
	}))
	defer srv.Close()
	kubeconfig := testcluster.WriteKubeconfig(t, srv.URL, "t")

	start := time.Now()
	code, out, stderr := runInstalledCmd(t, "", "--live", "--kubeconfig", kubeconfig, "-A", "--live-deadline", "700ms")
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, ExitErrors, code, stderr)
	assert.Empty(t, out)
	assert.Equal(t, "odlm-render: --live: live cluster "+srv.URL+": list subscriptions.operators.coreos.com in all namespaces: the whole live read exceeded its deadline of 700ms\n", stderr)
}

// The snapshot may come on stdin (kubectl get ... -o yaml | odlm-render installed --snapshot -).
func TestInstalledSnapshotFromStdin(t *testing.T) {
	t.Parallel()
	dir := installedData + "/_snapshots/openshift"
	var all []string
	for _, f := range []string{"csvs.yaml", "namespaces.yaml", "operatorgroups.yaml", "subscriptions.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		all = append(all, string(b))
	}
	code, fromStdin, stderr := runInstalledCmd(t, strings.Join(all, "\n---\n"), "--snapshot", "-", "-n", "team-a")
	require.Equal(t, ExitOK, code, stderr)
	_, fromFiles, _ := runInstalledCmd(t, "", "--snapshot", dir, "-n", "team-a")
	assert.Equal(t, fromFiles, fromStdin)

	rendered, err := os.ReadFile(installedData + "/_rendered/quickstart.yaml")
	require.NoError(t, err)
	code, out, stderr := runInstalledCmd(t, string(rendered), "--snapshot", dir, "--against", "-")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "kube-green")
}

// The same objects in any order and split any way give the same output.
func TestInstalledIsIndependentOfInputOrder(t *testing.T) {
	t.Parallel()
	dir := installedData + "/_snapshots/openshift"
	var args []string
	for _, f := range []string{"subscriptions.yaml", "operatorgroups.yaml", "namespaces.yaml", "csvs.yaml"} {
		args = append(args, "--snapshot", filepath.Join(dir, f))
	}
	for _, o := range []string{"table", "yaml"} {
		_, a, _ := runInstalledCmd(t, "", append(args, "-A", "-o", o)...)
		_, b, _ := runInstalledCmd(t, "", "--snapshot", dir, "-A", "-o", o)
		require.NotEmpty(t, a)
		assert.Equal(t, b, a, o)
	}
}

// TestInstalledLiveMatchesTheSnapshot applies the openshift snapshot (its namespaces renamed
// to fresh ones) to the test kube-apiserver, with minimal OLM CRDs and status written
// through the status subresource, and checks that --live prints what --snapshot prints for
// the same objects: the view of each namespace and the --against report.
func TestInstalledLiveMatchesTheSnapshot(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	crds, err := os.ReadFile(installedData + "/_live/olm-crds.yaml")
	require.NoError(t, err)
	c.Apply(t, string(crds))

	docs, err := inputs.ReadPaths([]string{installedData + "/_snapshots/openshift"}, nil)
	require.NoError(t, err)
	rename := map[string]string{}
	for _, o := range docs {
		if o.Kind() == "Namespace" {
			rename[o.Name()] = c.Namespace(t)
		}
	}
	rename["ibm-licensing"] = c.Namespace(t)
	var objs []*manifest.Object
	for _, o := range docs {
		if o.Kind() != "Namespace" {
			objs = append(objs, manifest.New(renameNamespaces(o.Map, rename).(map[string]any)))
		}
	}
	snapshot := filepath.Join(t.TempDir(), "snapshot.yaml")
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, objs))
	require.NoError(t, os.WriteFile(snapshot, buf.Bytes(), 0o644))
	applyWithStatus(t, c, objs)

	rendered, err := inputs.ReadPaths([]string{installedData + "/_rendered"}, nil)
	require.NoError(t, err)
	buf.Reset()
	var renamed []*manifest.Object
	for _, o := range rendered {
		renamed = append(renamed, manifest.New(renameNamespaces(o.Map, rename).(map[string]any)))
	}
	require.NoError(t, manifest.WriteYAML(&buf, renamed))
	against := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(against, buf.Bytes(), 0o644))

	mine := map[string]bool{}
	for _, ns := range rename {
		mine[ns] = true
	}
	// rows of operators other tests installed (watching all namespaces) are dropped
	ownRows := func(table string, column int) string {
		var keep []string
		for i, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
			if f := strings.Fields(line); i == 0 || len(f) > column && mine[f[column]] {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	live := []string{"--live", "--kubeconfig", c.AdminKubeconfig()}
	for _, ns := range []string{"team-a", "team-b", "platform", "openshift-operator-lifecycle-manager"} {
		t.Run(ns, func(t *testing.T) {
			code, want, stderr := runInstalledCmd(t, "", "--snapshot", snapshot, "-n", rename[ns])
			require.Equal(t, ExitOK, code, stderr)
			code, got, stderr := runInstalledCmd(t, "", append(live, "-n", rename[ns])...)
			require.Equal(t, ExitOK, code, stderr)
			assert.Equal(t, ownRows(want, 1), ownRows(got, 1))
			assert.Regexp(t, `(?m)^kube-green\.v0\.7\.1 +`+rename["openshift-operators"]+` +alpha `, got, "the AllNamespaces operator")

			code, got, stderr = runInstalledCmd(t, "", append(live, "-n", rename[ns], "-o", "yaml")...)
			require.Equal(t, ExitOK, code, stderr)
			assert.Contains(t, got, "kind: Installed\n")
			assert.Contains(t, got, "  namespace: "+rename[ns]+"\n")
			assert.NotContains(t, got, "olm.targetNamespaces")
			assert.NotContains(t, got, "base64data")
			assert.NotContains(t, got, "managedFields")
		})
	}
	t.Run("against", func(t *testing.T) {
		code, want, stderr := runInstalledCmd(t, "", "--snapshot", snapshot, "--against", against, "--fail-on-drift")
		require.Equal(t, ExitErrors, code, stderr)
		code, got, liveStderr := runInstalledCmd(t, "", append(live, "--against", against, "--fail-on-drift")...)
		assert.Equal(t, ExitErrors, code)
		assert.Equal(t, want, got)
		assert.Equal(t, stderr, liveStderr)
		assert.Contains(t, got, "installed")
		assert.Contains(t, got, "drifted")
		assert.Contains(t, got, "failed")
		assert.Contains(t, got, "pending")
		assert.Contains(t, got, "missing")
	})
	t.Run("-A lists the fresh namespaces", func(t *testing.T) {
		code, got, stderr := runInstalledCmd(t, "", append(live, "-A")...)
		require.Equal(t, ExitOK, code, stderr)
		assert.Regexp(t, `(?m)^`+rename["default"]+` +kube-green\.v0\.7\.1 +`+rename["openshift-operators"]+` `, got)
	})
	t.Run("rejected credentials", func(t *testing.T) {
		code, out, stderr := runInstalledCmd(t, "", "--live", "--kubeconfig", testcluster.WriteKubeconfig(t, c.Server(), "not-a-valid-token"), "-n", rename["team-a"])
		assert.Equal(t, ExitErrors, code)
		assert.Empty(t, out)
		assert.Contains(t, stderr, "odlm-render: --live: live cluster "+c.Server()+": unauthorized: ")
		assert.NotContains(t, stderr, "not-a-valid-token")
	})
}

// renameNamespaces replaces every string that is a namespace name of rename (or a
// comma-separated list of them, as olm.targetNamespaces) with its new name.
func renameNamespaces(v any, rename map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = renameNamespaces(e, rename)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = renameNamespaces(e, rename)
		}
		return l
	case string:
		parts := strings.Split(x, ",")
		for i, p := range parts {
			n, ok := rename[p]
			if !ok {
				return x
			}
			parts[i] = n
		}
		return strings.Join(parts, ",")
	}
	return v
}

// applyWithStatus creates objects as the admin, then writes their status through the
// status subresource, as OLM does (the CRDs have one: a create drops status).
func applyWithStatus(t *testing.T, c *testcluster.Cluster, objs []*manifest.Object) {
	t.Helper()
	var buf bytes.Buffer
	for _, o := range objs {
		m := manifest.New(map[string]any{})
		for k, v := range o.Map {
			m.Map[k] = v
		}
		md := map[string]any{}
		for k, v := range o.Map["metadata"].(map[string]any) {
			if k != "managedFields" && k != "uid" && k != "resourceVersion" { // set by the server
				md[k] = v
			}
		}
		m.Map["metadata"] = md
		require.NoError(t, manifest.WriteYAML(&buf, []*manifest.Object{m}))
		buf.WriteString("---\n")
	}
	c.Apply(t, buf.String())
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig())
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	plural := map[string]string{"Subscription": "subscriptions", "ClusterServiceVersion": "clusterserviceversions", "OperatorGroup": "operatorgroups"}
	for _, o := range objs {
		status, ok := o.Map["status"]
		if !ok {
			continue
		}
		b, err := manifest.MarshalJSON(map[string]any{
			"apiVersion": o.APIVersion(), "kind": o.Kind(),
			"metadata": map[string]any{"name": o.Name(), "namespace": o.Namespace()},
			"status":   status,
		})
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(b))
		gv, err := schema.ParseGroupVersion(o.APIVersion())
		require.NoError(t, err)
		res := dyn.Resource(gv.WithResource(plural[o.Kind()])).Namespace(o.Namespace())
		// another test applying OLM's CRDs on the shared server makes the server reload their
		// handlers, which answer 404 for a moment: retry until the status is written
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := res.ApplyStatus(ctx, o.Name(), u, metav1.ApplyOptions{FieldManager: "olm", Force: true})
			assert.NoError(c, err, "status of %s", o.Ref())
		}, 30*time.Second, 200*time.Millisecond)
	}
}
