package cli_test

import (
	"encoding/base64"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// liveReaderRole returns the ClusterRole documented in deploy/rbac/live-reader.yaml, renamed
// (ClusterRoles are cluster-wide and the test cluster is shared), with extra rules appended.
func liveReaderRole(t *testing.T, name string, extra ...map[string]any) *manifest.Object {
	t.Helper()
	b, err := os.ReadFile("../../deploy/rbac/live-reader.yaml")
	require.NoError(t, err)
	objs, err := manifest.Decode("deploy/rbac/live-reader.yaml", b)
	require.NoError(t, err)
	var role *manifest.Object
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Kind()]++
		if o.Kind() == "ClusterRole" {
			role = o
		}
	}
	require.Equal(t, map[string]int{"ClusterRole": 1, "ServiceAccount": 1, "ClusterRoleBinding": 1}, kinds, "the documented example")
	require.NotNil(t, role)
	rules, _ := role.Map["rules"].([]any)
	for _, r := range rules {
		verbs, _ := r.(map[string]any)["verbs"].([]any)
		for _, v := range verbs {
			assert.Contains(t, []any{"get", "list"}, v, "the documented role grants reads only: %v", r)
		}
	}
	for _, r := range extra {
		rules = append(rules, r)
	}
	role.Map["rules"] = rules
	role.Map["metadata"] = map[string]any{"name": name}
	return role
}

// bindServiceAccount binds a ClusterRole to the ServiceAccount namespace/name.
func bindServiceAccount(t *testing.T, c *testcluster.Cluster, role, namespace, name string) {
	t.Helper()
	c.Apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: `+role+`}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: `+role+`}
subjects:
- {kind: ServiceAccount, name: `+name+`, namespace: `+namespace+`}
`)
}

// TestSecurityLiveNeedsOnlyTheDocumentedRoleAndOnlyGets renders with --live as a
// ServiceAccount bound to nothing but the ClusterRole of deploy/rbac/live-reader.yaml (plus
// get on the objectRef kind the templates read, as the file tells users to add), then reads
// the API server's audit log: every request of that ServiceAccount is a get or a list (ODLM's
// searches for Subscriptions and OperatorGroups), none was refused. Without the objectRef rule the render fails with a Forbidden error naming the
// resource. A planted Secret value never reaches stderr.
func TestSecurityLiveNeedsOnlyTheDocumentedRoleAndOnlyReads(t *testing.T) {
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
	c := testcluster.Start(t)
	c.Apply(t, liveCRD)
	c.Apply(t, olmCRDs)
	ns := c.Namespace(t)
	const planted = "planted-live-secret-7f3a"
	encoded := base64.StdEncoding.EncodeToString([]byte(planted))
	c.Apply(t, strings.ReplaceAll(`apiVersion: v1
kind: ConfigMap
metadata: {name: storage, namespace: NS}
data: {class: gp3-csi}
---
apiVersion: v1
kind: Secret
metadata: {name: admin, namespace: NS}
stringData: {password: `+planted+`}
---
apiVersion: example.com/v1
kind: Sizing
metadata: {name: default, namespace: NS}
spec: {storage: 42G}
`, "NS", ns))
	in := liveInputs(t, ns)
	catalog := "--catalog=" + nfsCatalog

	// the documented role + get on the objectRef kind
	allowed := ns + "-live-reader"
	c.Apply(t, mustYAML(t, liveReaderRole(t, allowed, map[string]any{
		"apiGroups": []any{"example.com"}, "resources": []any{"sizings"}, "verbs": []any{"get"},
	})))
	kubeconfig := c.ServiceAccountKubeconfig(t, ns, "odlm-render")
	bindServiceAccount(t, c, allowed, ns, "odlm-render")
	user := testcluster.ServiceAccountUser(ns, "odlm-render")
	for _, r := range [][2]string{{"", "configmaps"}, {"", "secrets"}, {"example.com", "sizings"}} {
		c.WaitAllowed(t, user, ns, r[0], r[1], "get")
	}

	code, out, stderr := run(t, "", "render", in, catalog, "--live", "--kubeconfig", kubeconfig, "--explain", "-v")
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "storageSize: 42G")
	assert.Contains(t, out, "scForNFSPvc: gp3-csi")
	assert.Contains(t, out, "password: "+planted, "inline is ODLM's behaviour")
	assert.Contains(t, stderr, "(live)")
	assert.NotContains(t, stderr, planted)
	assert.NotContains(t, stderr, encoded)

	// the audit log: the three objects and two discovery documents, all get, none refused
	events := c.WaitAuditEvents(t, user, 5)
	verbs := map[string]int{}
	var uris []string
	for _, e := range events {
		verbs[e.Verb]++
		path, _, _ := strings.Cut(e.RequestURI, "?")
		uris = append(uris, e.Verb+" "+path)
		if assert.NotNil(t, e.ResponseStatus, "%s %s", e.Verb, e.RequestURI) {
			// 404: the render asks whether the objects it emits exist already (docs/semantics.md, Decided deviations: one look-up order)
			assert.Contains(t, []int{200, 404}, int(e.ResponseStatus.Code), "%s %s: nothing beyond the role is needed", e.Verb, e.RequestURI)
		}
	}
	t.Logf("audit events of %s: %v\n%s", user, verbs, strings.Join(uris, "\n"))
	assert.Equal(t, []string{"get", "list"}, keys(verbs), "live mode only ever gets and lists: %v", uris)
	assert.Contains(t, uris, "list /apis/operators.coreos.com/v1alpha1/namespaces/"+ns+"/subscriptions", "ODLM's search for existing Subscriptions")
	assert.Contains(t, uris, "list /apis/operators.coreos.com/v1/namespaces/"+ns+"/operatorgroups", "and OperatorGroups")
	for _, want := range []string{
		"get /api/v1",
		"get /apis/example.com/v1",
		"get /api/v1/namespaces/" + ns + "/configmaps/storage",
		"get /api/v1/namespaces/" + ns + "/secrets/admin",
		"get /apis/example.com/v1/namespaces/" + ns + "/sizings/default",
	} {
		assert.Contains(t, uris, want)
	}

	// the documented role alone: the objectRef kind is forbidden, and the error says so
	bare := ns + "-bare"
	c.Apply(t, mustYAML(t, liveReaderRole(t, bare)))
	bareKubeconfig := c.ServiceAccountKubeconfig(t, ns, "bare")
	bindServiceAccount(t, c, bare, ns, "bare")
	bareUser := testcluster.ServiceAccountUser(ns, "bare")
	c.WaitAllowed(t, bareUser, ns, "", "secrets", "get")
	code, out, stderr = run(t, "", "render", in, catalog, "--live", "--kubeconfig", bareKubeconfig, "--explain", "-v")
	assert.Equal(t, cli.ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, `forbidden: user "`+bareUser+`" cannot get sizings.example.com `+ns+`/default (RBAC)`)
	assert.Contains(t, stderr, "NFSProvisioner", "the error names the template")
	assert.NotContains(t, stderr, planted)
	assert.NotContains(t, stderr, encoded)
	for _, e := range c.WaitAuditEvents(t, bareUser, 1) {
		assert.Contains(t, []string{"get", "list"}, e.Verb, "%s", e.RequestURI)
	}
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mustYAML(t *testing.T, o *manifest.Object) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, manifest.WriteYAML(&b, []*manifest.Object{o}))
	return b.String()
}
