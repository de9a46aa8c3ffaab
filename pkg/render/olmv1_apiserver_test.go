package render_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// TestInstallerRBACIsSufficientAndMinimal applies the installer ServiceAccount and RBAC that
// `--olm v1 --olm-v1-service-account` derives for kube-green's real bundle to the real
// kube-apiserver the tests run, and asks the server, as that ServiceAccount, for everything
// installing the bundle takes (listed here from the bundle's contents, apart from the
// derivation): dry-run creates of the CRD, the bundle's objects, the operator's ServiceAccount
// and Deployment, and of the roles and bindings granting the CSV's permissions (which RBAC
// allows only to a holder of those permissions), and SubjectAccessReviews for reading,
// updating and deleting each of them by name. All succeed; and with any one rule of the
// ClusterRole or the Role removed, at least one fails.
func TestInstallerRBACIsSufficientAndMinimal(t *testing.T) {
	c := testcluster.Start(t)
	for _, tc := range []struct{ dir, pkg, channel string }{
		{"olm-v1-installer-rbac", "kube-green", "alpha"},
		{"olm-v1-installer-rbac-custom-resources", "ecr-secret-operator", "alpha"},
	} {
		t.Run(tc.pkg, func(t *testing.T) { installerRBAC(t, c, tc.dir, tc.pkg, tc.channel) })
	}
}

func installerRBAC(t *testing.T, c *testcluster.Cluster, dir, pkgName, channel string) {
	in, opts := loadCase(t, casesDir+"/"+dir)
	out := render.Render(in, opts)
	require.False(t, out.Results.HasErrors(), "%v", out.Results)
	var installer []*manifest.Object
	var clusterRole, role *manifest.Object
	for _, o := range out.Objects {
		if strings.HasSuffix(o.Name(), "-installer") {
			installer = append(installer, o)
			switch o.Kind() {
			case "ClusterRole":
				clusterRole = o
			case "Role":
				role = o
			}
		}
	}
	require.NotNil(t, clusterRole)
	require.NotNil(t, role)
	namespace := role.Namespace()
	user := "system:serviceaccount:" + namespace + ":" + pkgName + "-installer"
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", namespace))
	for _, o := range installer {
		apply(t, c, o.Map)
	}

	pkg, _ := in.Catalog.Package(pkgName)
	head, err := pkg.HeadBundle(channel)
	require.NoError(t, err)
	prereqs, creates, accesses := installWork(t, head.Contents, namespace, pkgName)
	for _, o := range prereqs {
		apply(t, c, o)
	}

	missing := func() []string {
		var out []string
		for _, obj := range creates {
			err := c.DryRunCreateAs(user, groups, obj)
			switch {
			case apierrors.IsForbidden(err):
				out = append(out, fmt.Sprintf("create %s %s: %v", obj["kind"], manifest.New(obj).Name(), err))
			case err != nil:
				require.NoError(t, err, "a dry-run create the test makes must be valid")
			}
		}
		for _, a := range accesses {
			ok, err := c.Allowed(user, groups, a)
			require.NoError(t, err)
			if !ok {
				out = append(out, a.String())
			}
		}
		return out
	}
	settle := func(want func([]string) bool) []string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := missing()
			if want(got) || time.Now().After(deadline) {
				return got
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	require.Empty(t, settle(func(m []string) bool { return len(m) == 0 }), "the derived RBAC is sufficient")

	for _, r := range []*manifest.Object{clusterRole, role} {
		rules, _ := r.Map["rules"].([]any)
		for i := range rules {
			less := manifest.New(map[string]any{"apiVersion": r.APIVersion(), "kind": r.Kind(), "metadata": r.Map["metadata"],
				"rules": append(append([]any{}, rules[:i]...), rules[i+1:]...)})
			apply(t, c, less.Map)
			got := settle(func(m []string) bool { return len(m) > 0 })
			assert.NotEmpty(t, got, "%s rule %d (%v) is not needed: nothing fails without it", r.Kind(), i, rules[i])
			apply(t, c, r.Map)
			require.Empty(t, settle(func(m []string) bool { return len(m) == 0 }), "restored")
		}
	}
}

func apply(t *testing.T, c *testcluster.Cluster, obj map[string]any) {
	t.Helper()
	b, err := manifest.MarshalJSON(obj)
	require.NoError(t, err)
	c.Apply(t, string(b))
}

// installWork lists what installing a bundle's contents takes, as operator-controller does
// it: the objects it creates, and what it reads, updates and deletes by name.
func installWork(t *testing.T, ct *catalog.Contents, namespace, pkgName string) (prereqs, creates []map[string]any, accesses []testcluster.Access) {
	t.Helper()
	require.NotNil(t, ct)
	manage := func(group, resource, ns, name string) {
		for _, verb := range []string{"get", "update", "patch", "delete"} {
			accesses = append(accesses, testcluster.Access{Verb: verb, Group: group, Resource: resource, Namespace: ns, Name: name})
		}
		for _, verb := range []string{"list", "watch"} {
			accesses = append(accesses, testcluster.Access{Verb: verb, Group: group, Resource: resource, Namespace: ns})
		}
	}
	// the CRDs exist before the custom resources of the bundle (made by the admin), so
	// creating them is asked of the authorizer
	crdResource := map[string]string{} // group|kind → plural
	for i := range ct.CRDs {
		crd, err := ct.CRD(i)
		require.NoError(t, err)
		prereqs = append(prereqs, crd)
		accesses = append(accesses, testcluster.Access{Verb: "create", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"})
		manage("apiextensions.k8s.io", "customresourcedefinitions", "", ct.CRDName(i))
		spec := crd["spec"].(map[string]any)
		names := spec["names"].(map[string]any)
		crdResource[spec["group"].(string)+"|"+names["kind"].(string)] = names["plural"].(string)
	}
	for _, o := range ct.Objects {
		group, _, found := strings.Cut(o.APIVersion, "/")
		if !found {
			group = ""
		}
		md := map[string]any{"name": o.Name, "namespace": namespace}
		obj := map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": md}
		switch {
		case o.Kind == "Service" && group == "":
			obj["spec"] = map[string]any{"ports": []any{map[string]any{"port": int64(443)}}}
			creates = append(creates, obj)
			manage("", "services", namespace, o.Name)
		case o.Kind == "ConfigMap" && group == "":
			creates = append(creates, obj)
			manage("", "configmaps", namespace, o.Name)
		case o.Kind == "ClusterRole" && group == "rbac.authorization.k8s.io":
			accesses = append(accesses, testcluster.Access{Verb: "create", Group: group, Resource: "clusterroles"})
			manage(group, "clusterroles", "", o.Name)
		case crdResource[group+"|"+o.Kind] != "":
			resource := crdResource[group+"|"+o.Kind]
			accesses = append(accesses, testcluster.Access{Verb: "create", Group: group, Resource: resource, Namespace: namespace})
			manage(group, resource, namespace, o.Name)
		default:
			t.Fatalf("the test does not know how to make a %s", o.Kind)
		}
	}
	var allRules []any
	accounts := map[string]bool{}
	for _, p := range append(append([]v1alpha1.StrategyDeploymentPermissions{}, ct.Permissions...), ct.ClusterPermissions...) {
		accounts[p.ServiceAccountName] = true
		rules, err := manifest.ToValue(p.Rules)
		require.NoError(t, err)
		allRules = append(allRules, rules.([]any)...)
	}
	for _, sa := range manifest.SortedKeys(accounts) {
		creates = append(creates, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": sa, "namespace": namespace}})
		manage("", "serviceaccounts", namespace, sa)
	}
	for _, d := range ct.Deployments {
		labels := map[string]any{"app": d}
		creates = append(creates, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": d, "namespace": namespace},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "manager", "image": "example.com/manager:1"}}}}}})
		manage("apps", "deployments", namespace, d)
	}
	// the roles and bindings operator-controller generates, granting the CSV's permissions
	// (names of its own making: any will do). A binding may name a role only when its
	// creator holds the role's permissions, so the roles exist (made by the admin, prereqs)
	// while the bindings are created; a role of the same rules under another name is created
	// as the installer (RBAC refuses to let anyone grant what they lack)
	generated := pkgName + ".5ae6d1b2"
	subjects := []any{}
	for _, sa := range manifest.SortedKeys(accounts) {
		subjects = append(subjects, map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": namespace})
	}
	prereqs = append(prereqs,
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": generated}, "rules": allRules},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": generated, "namespace": namespace}, "rules": allRules},
	)
	creates = append(creates,
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": generated + "-new"}, "rules": allRules},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": generated + "-new", "namespace": namespace}, "rules": allRules},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": generated},
			"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": generated}, "subjects": subjects},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": generated, "namespace": namespace},
			"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": generated}, "subjects": subjects},
	)
	manage("rbac.authorization.k8s.io", "clusterroles", "", generated)
	manage("rbac.authorization.k8s.io", "clusterrolebindings", "", generated)
	manage("rbac.authorization.k8s.io", "roles", namespace, generated)
	manage("rbac.authorization.k8s.io", "rolebindings", namespace, generated)
	accesses = append(accesses, testcluster.Access{Verb: "update", Group: "olm.operatorframework.io", Resource: "clusterextensions", Subresource: "finalizers", Name: pkgName})
	return prereqs, creates, accesses
}

// TestOLMv1ObjectsOnTheAPIServer installs operator-controller v1.11.0's CRDs in the real
// kube-apiserver and creates every ClusterExtension and ClusterCatalog the OLM v1 golden
// cases expect in a server-side dry run (strict field validation): the standard CRDs for
// the standard cases, then the experimental ClusterExtension CRD for watchNamespace.
func TestOLMv1ObjectsOnTheAPIServer(t *testing.T) {
	c := testcluster.Start(t)
	read := func(path string) string {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(data)
	}
	const olmv1 = "../../internal/platform/olmv1/"
	c.Apply(t, read(olmv1+"olm.operatorframework.io_clustercatalogs.yaml"))
	checked := 0
	for _, experimental := range []bool{false, true} {
		if experimental {
			c.Apply(t, read(olmv1+"experimental/olm.operatorframework.io_clusterextensions.yaml"))
		} else {
			c.Apply(t, read(olmv1+"olm.operatorframework.io_clusterextensions.yaml"))
		}
		for _, cs := range golden.Cases(t, casesDir) {
			if cs.OLM != "v1" || cs.OLMv1WatchNamespace != experimental {
				continue
			}
			objs, err := manifest.Decode(cs.Name(), []byte(cs.ExpectedYAML(t)))
			require.NoError(t, err)
			for _, o := range objs {
				if o.Group() != "olm.operatorframework.io" {
					continue
				}
				assert.NoError(t, c.DryRunCreate(o.Map), "%s: %s", cs.Name(), o.Ref())
				checked++
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 8)
}
