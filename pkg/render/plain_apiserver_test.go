package render_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// plainInstallCases are the golden cases of --olm none whose render succeeds: each install
// mode and each certificate provider, with the real bundles of kube-green and
// openstack-lightspeed-operator.
var plainInstallCases = []struct{ dir, pkg string }{
	{"olm-none-all-namespaces-webhooks-cert-manager", "kube-green"},
	{"olm-none-webhooks-service-ca", "kube-green"},
	{"olm-none-webhooks-certs-none", "kube-green"},
	{"olm-none-own-namespace", "openstack-lightspeed-operator"},
	{"olm-none-single-namespace", "openstack-lightspeed-operator"},
	{"olm-none-multi-namespace", "openstack-lightspeed-operator"},
}

// TestPlainInstallOnTheAPIServer creates what --olm none writes on the real kube-apiserver
// the tests run: the CRDs for real (with cert-manager's, for its Issuer and Certificate),
// then every other object in a server-side dry run with strict field validation; then the
// ServiceAccounts and RBAC for real, and asks the server (SubjectAccessReviews, the
// operator's ServiceAccount impersonated) for every permission the CSV asks for: allowed in
// each namespace the install mode targets, cluster-wide for clusterPermissions, and not in
// a namespace the operator does not watch.
func TestPlainInstallOnTheAPIServer(t *testing.T) {
	c := testcluster.Start(t)
	for _, f := range []string{"certificates", "issuers"} {
		crd, err := os.ReadFile("../../testdata/crds/cert-manager-v1.16.2/" + f + ".yaml")
		require.NoError(t, err)
		c.Apply(t, string(crd))
	}
	for _, tc := range plainInstallCases { // one after the other: they share cluster-scoped names
		t.Run(tc.dir, func(t *testing.T) { plainInstallOnTheAPIServer(t, c, tc.dir, tc.pkg) })
	}
}

func plainInstallOnTheAPIServer(t *testing.T, c *testcluster.Cluster, dir, pkgName string) {
	in, opts := loadCase(t, casesDir+"/"+dir)
	out := render.Render(in, opts)
	require.False(t, out.Results.HasErrors(), "%v", out.Results)
	const elsewhere = "not-watched"
	namespaces := []string{elsewhere}
	var deployment *manifest.Object
	for _, o := range out.Objects {
		if o.Namespace() != "" && !slices.Contains(namespaces, o.Namespace()) {
			namespaces = append(namespaces, o.Namespace())
		}
		if o.Kind() == "Deployment" {
			deployment = o
		}
	}
	require.NotNil(t, deployment)
	targets := strings.Split(deployment.String("spec", "template", "metadata", "annotations", "olm.targetNamespaces"), ",")
	for _, ns := range targets {
		if ns != "" && !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	for _, ns := range namespaces {
		c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", ns))
	}
	var rest []*manifest.Object
	for _, o := range out.Objects {
		if o.Kind() == "CustomResourceDefinition" {
			apply(t, c, o.Map)
		} else {
			rest = append(rest, o)
		}
	}
	for _, o := range rest {
		assert.NoError(t, c.DryRunCreate(manifest.New(o.Map).Map), "create %s", o.Ref())
	}
	for _, o := range rest {
		switch o.Kind() {
		case "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
			apply(t, c, o.Map)
			t.Cleanup(func() { c.Delete(t, o.APIVersion(), o.Kind(), o.Namespace(), o.Name()) }) // the next case creates them again
		}
	}

	pkg, ok := in.Catalog.Package(pkgName)
	require.True(t, ok)
	head, err := pkg.HeadBundle("alpha")
	require.NoError(t, err)
	install := deployment.Namespace()
	all := len(targets) == 1 && targets[0] == ""
	var users []string
	userOf := func(p v1alpha1.StrategyDeploymentPermissions) string {
		sa := p.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		user := testcluster.ServiceAccountUser(install, sa)
		if !slices.Contains(users, user) {
			users = append(users, user)
		}
		return user
	}
	type grant struct {
		user   string
		access testcluster.Access
	}
	var grants, denials []grant
	for _, p := range head.Contents.ClusterPermissions {
		for _, a := range accessesOf(p, "") {
			grants = append(grants, grant{userOf(p), a})
		}
	}
	for _, p := range head.Contents.Permissions {
		watched := targets
		if all {
			watched = []string{""}
		}
		for _, ns := range watched {
			for _, a := range accessesOf(p, ns) {
				grants = append(grants, grant{userOf(p), a})
			}
		}
		if !all {
			for _, a := range accessesOf(p, elsewhere) {
				denials = append(denials, grant{userOf(p), a})
			}
		}
	}
	require.NotEmpty(t, grants)
	check := func() (missing, extra []string) {
		for _, g := range grants {
			ok, err := c.Allowed(g.user, serviceAccountGroups(install), g.access)
			require.NoError(t, err)
			if !ok {
				missing = append(missing, g.user+": "+g.access.String())
			}
		}
		for _, g := range denials {
			ok, err := c.Allowed(g.user, serviceAccountGroups(install), g.access)
			require.NoError(t, err)
			if ok && !grantedClusterWide(head.Contents, g.access) {
				extra = append(extra, g.user+": "+g.access.String())
			}
		}
		return missing, extra
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing, extra := check()
		if (len(missing) == 0 && len(extra) == 0) || time.Now().After(deadline) {
			assert.Empty(t, missing, "what the CSV asks for is allowed where the install mode says")
			assert.Empty(t, extra, "and nowhere else")
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// accessesOf lists the requests a permission's rules allow, in a namespace ("" cluster-wide):
// each verb on each resource of each group, by name where the rule names resources.
func accessesOf(p v1alpha1.StrategyDeploymentPermissions, namespace string) []testcluster.Access {
	var out []testcluster.Access
	for _, r := range p.Rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				resource, sub, _ := strings.Cut(res, "/")
				for _, v := range r.Verbs {
					for _, n := range names {
						out = append(out, testcluster.Access{Verb: v, Group: g, Resource: resource, Subresource: sub, Namespace: namespace, Name: n})
					}
				}
			}
		}
	}
	return out
}

// grantedClusterWide reports an access a cluster permission of the CSV grants anyway (then a
// namespace the operator does not watch allows it too).
func grantedClusterWide(ct *catalog.Contents, a testcluster.Access) bool {
	for _, p := range ct.ClusterPermissions {
		for _, g := range accessesOf(p, "") {
			if g.Verb == a.Verb && g.Group == a.Group && g.Resource == a.Resource && g.Subresource == a.Subresource && (g.Name == "" || g.Name == a.Name) {
				return true
			}
		}
	}
	return false
}

func serviceAccountGroups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
}
