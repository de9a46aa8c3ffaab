package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
// Two more ODLM-labelled objects of kinds the render does not generate, a
// PersistentVolumeClaim and a custom resource, are removed in both. Run as a user who may not
// list PersistentVolumeClaims, the plan notes that kind as not searched, and still finds the
// custom resource.
func TestPlanLiveMatchesTheSnapshot(t *testing.T) {
	t.Parallel()
	catalog := kokuCatalog(t)
	c := testcluster.Start(t)
	crds, err := os.ReadFile(installedData + "/_live/olm-crds.yaml")
	require.NoError(t, err)
	c.Apply(t, string(crds))
	c.Apply(t, leftoverCRD)

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
	extra := filepath.Join(t.TempDir(), "labelled.yaml")
	require.NoError(t, os.WriteFile(extra, []byte(labelledLeftovers), 0o644))
	snapshot, cluster := write([]string{dir + "/snapshot", extra}, "snapshot.yaml")
	applyWithStatus(t, c, cluster)

	plan := func(args ...string) map[string]any {
		t.Helper()
		code, out, stderr := runCLI(t, "", append([]string{"plan", input, "--catalog", catalog, "-o", "json"}, args...)...)
		require.Equal(t, ExitOK, code, stderr)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m), out)
		return m
	}
	want := plan("--snapshot", snapshot)
	got := plan("--live", "--kubeconfig", c.AdminKubeconfig())
	require.NotEmpty(t, want["operators"])
	// the case's operators only: the shared cluster holds other tests' ODLM Subscriptions,
	// which the live plan lists as removals
	assert.Equal(t, operatorsIn(want, rename["costs"]), operatorsIn(got, rename["costs"]), "the operator: from, to, path, CRDs, permissions")
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
	ns := rename["costs"]
	assert.Equal(t, []any{
		map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": ns, "name": "old-data"},
		map[string]any{"apiVersion": "planlive.odlm-render.io/v1", "kind": "Leftover", "namespace": ns, "name": "old-sizing"},
	}, ours(got)["removed"], "labelled objects of kinds the render does not generate")
	assert.Equal(t, []any{}, want["notes"])

	t.Run("a kind the user may not list is a note", func(t *testing.T) {
		kubeconfig := c.ServiceAccountKubeconfig(t, ns, "planner")
		user := testcluster.ServiceAccountUser(ns, "planner")
		c.Apply(t, strings.ReplaceAll(plannerRole, "NS", ns))
		c.WaitAllowed(t, user, "", "planlive.odlm-render.io", "leftovers", "list")
		limited := plan("--live", "--kubeconfig", kubeconfig)
		assert.Equal(t, operatorsIn(want, rename["costs"]), operatorsIn(limited, rename["costs"]))
		assert.Equal(t, []any{
			map[string]any{"apiVersion": "planlive.odlm-render.io/v1", "kind": "Leftover", "namespace": ns, "name": "old-sizing"},
		}, ours(limited)["removed"], "the PersistentVolumeClaim is not searched")
		notes, _ := limited["notes"].([]any)
		require.Len(t, notes, 2, "%v", notes)
		// the Secrets of the namespace the user may not list: values copied from them are not
		// known, so not hidden, and the plan says so
		secrets, _ := notes[0].(string)
		assert.Regexp(t, `^the Secrets of namespace\(s\) \S+ may not be listed \(forbidden\)`, secrets)
		note, _ := notes[1].(string)
		assert.True(t, strings.HasPrefix(note, "not searched for removed objects: "), note)
		assert.Contains(t, note, " kinds the user may not list (forbidden), by API group: ")
		assert.Regexp(t, `by API group: core: [^;]*\bPersistentVolumeClaim\b`, note, "in the core group")
		assert.NotContains(t, note, "Leftover")
	})
}

// leftoverCRD serves the custom resource of labelledLeftovers.
const leftoverCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: leftovers.planlive.odlm-render.io}
spec:
  group: planlive.odlm-render.io
  scope: Namespaced
  names: {plural: leftovers, singular: leftover, kind: Leftover, listKind: LeftoverList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// labelledLeftovers are ODLM-labelled objects of kinds outside what the render generates
// (the namespace costs is renamed by the test).
const labelledLeftovers = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: old-data, namespace: costs, labels: {operator.ibm.com/opreq-control: "true"}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: planlive.odlm-render.io/v1
kind: Leftover
metadata: {name: old-sizing, namespace: costs, labels: {operator.ibm.com/opreq-control: "true"}}
spec: {size: small}
`

// plannerRole lets the ServiceAccount NS/planner read what plan --live reads of the koku
// case, and list the custom resources of leftoverCRD, but list no PersistentVolumeClaim.
const plannerRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: NS-planner}
rules:
- apiGroups: [operators.coreos.com]
  resources: [subscriptions, clusterserviceversions, operatorgroups, catalogsources]
  verbs: [get, list]
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: [get, list]
- apiGroups: [""]
  resources: [configmaps, secrets]
  verbs: [get]
- apiGroups: [planlive.odlm-render.io]
  resources: [leftovers]
  verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: NS-planner}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: NS-planner}
subjects:
- {kind: ServiceAccount, name: planner, namespace: NS}
`

// operatorsIn are a JSON plan's operators of one namespace.
func operatorsIn(plan map[string]any, namespace string) []any {
	var out []any
	ops, _ := plan["operators"].([]any)
	for _, op := range ops {
		if manifest.Get(op, "namespace") == namespace {
			out = append(out, op)
		}
	}
	return out
}
