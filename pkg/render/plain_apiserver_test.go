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
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// plainInstallCases are the golden cases of --olm none whose render succeeds: each install
// mode and each certificate provider, with the real bundles of kube-green and
// openstack-lightspeed-operator, and IBM's foundational services (IM, common UI, EDB and
// Keycloak's real bundles).
var plainInstallCases = []string{
	"olm-none-all-namespaces-webhooks-cert-manager",
	"olm-none-webhooks-service-ca",
	"olm-none-webhooks-certs-none",
	"olm-none-own-namespace",
	"olm-none-single-namespace",
	"olm-none-multi-namespace",
	"real-foundational-services-olm-none",
}

// TestPlainInstallOnTheAPIServer creates what --olm none writes on the real kube-apiserver
// the tests run: the CRDs for real (with cert-manager's, for its Issuer and Certificate),
// then every other object in a server-side dry run with strict field validation; then the
// ServiceAccounts and RBAC for real, and asks the server (SubjectAccessReviews, the
// operator's ServiceAccount impersonated) for every permission each installed CSV asks for:
// allowed in each namespace its install mode targets, cluster-wide for clusterPermissions,
// and not in a namespace the operator does not watch.
func TestPlainInstallOnTheAPIServer(t *testing.T) {
	var certManager []string // cert-manager's CRDs (testdata/crds, in the reference folder)
	for _, f := range []string{"certificates", "issuers"} {
		certManager = append(certManager, refdata.Testdata(t, "crds/cert-manager-v1.16.2/"+f+".yaml"))
	}
	c := testcluster.Start(t)
	for _, f := range certManager {
		crd, err := os.ReadFile(f)
		require.NoError(t, err)
		c.Apply(t, string(crd))
	}
	for _, dir := range plainInstallCases { // one after the other: they share cluster-scoped names
		t.Run(dir, func(t *testing.T) { plainInstallOnTheAPIServer(t, c, dir) })
	}
}

// installKinds are the kinds an install without OLM writes (the operands and OperandConfig
// resources of IBM's configuration, checked by the render against their CRDs, include ODLM's
// own kinds, which this API server does not serve, and values that exist only at run time).
var installKinds = map[string]bool{
	"ServiceAccount": true, "Role": true, "RoleBinding": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"Deployment": true, "Service": true, "ConfigMap": true, "Secret": true, "Issuer": true, "Certificate": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
}

// elsewhere is a namespace no operator of the cases watches.
const elsewhere = "not-watched"

func plainInstallOnTheAPIServer(t *testing.T, c *testcluster.Cluster, dir string) {
	in, opts := loadCase(t, casesDir+"/"+dir)
	out := render.Render(in, opts)
	require.False(t, out.Results.HasErrors(), "%v", out.Results)
	require.NotEmpty(t, out.Installs)
	namespaces := []string{elsewhere}
	addNamespace := func(ns string) {
		if ns != "" && !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	for _, o := range out.Objects {
		addNamespace(o.Namespace())
	}
	targetsOf := map[string][]string{} // install namespace → what its Deployments watch
	for _, o := range out.Objects {
		if o.Kind() == "Deployment" {
			targets := strings.Split(o.String("spec", "template", "metadata", "annotations", "olm.targetNamespaces"), ",")
			targetsOf[o.Namespace()] = targets
			for _, ns := range targets {
				addNamespace(ns)
			}
		}
	}
	for _, ns := range namespaces {
		c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", ns))
	}
	var rest []*manifest.Object
	for _, o := range out.Objects {
		switch {
		case o.Kind() == "CustomResourceDefinition":
			applyCRD(t, c, o)
		case installKinds[o.Kind()]:
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
	var grants, denials []grant
	for _, inst := range out.Installs {
		require.NotNil(t, inst.Bundle, inst.Package)
		g, d := permissionsOf(inst.Bundle.Contents, inst.Namespace, targetsOf[inst.Namespace])
		grants, denials = append(grants, g...), append(denials, d...)
	}
	require.NotEmpty(t, grants)
	check := func() (missing, extra []string) {
		for _, g := range grants {
			ok, err := c.Allowed(g.user, serviceAccountGroups(g.namespace), g.access)
			require.NoError(t, err)
			if !ok {
				missing = append(missing, g.user+": "+g.access.String())
			}
		}
		for _, g := range denials {
			ok, err := c.Allowed(g.user, serviceAccountGroups(g.namespace), g.access)
			require.NoError(t, err)
			if ok && !g.clusterWide {
				extra = append(extra, g.user+": "+g.access.String())
			}
		}
		return missing, extra
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing, extra := check()
		if (len(missing) == 0 && len(extra) == 0) || time.Now().After(deadline) {
			assert.Empty(t, missing, "what the CSVs ask for is allowed where the install modes say")
			assert.Empty(t, extra, "and nowhere else")
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// grant is a request an operator's ServiceAccount makes; clusterWide marks a denial that a
// cluster permission of the same CSV grants anyway.
type grant struct {
	user, namespace string
	access          testcluster.Access
	clusterWide     bool
}

// permissionsOf lists what a CSV installed in namespace, watching targets ([""]: all), must
// be allowed, and what it must not be (its namespaced permissions in a namespace it does not
// watch).
func permissionsOf(ct *catalog.Contents, namespace string, targets []string) (grants, denials []grant) {
	userOf := func(p v1alpha1.StrategyDeploymentPermissions) string {
		sa := p.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		return testcluster.ServiceAccountUser(namespace, sa)
	}
	for _, p := range ct.ClusterPermissions {
		for _, a := range accessesOf(p, "") {
			grants = append(grants, grant{userOf(p), namespace, a, false})
		}
	}
	all := len(targets) == 1 && targets[0] == ""
	for _, p := range ct.Permissions {
		for _, ns := range targets {
			for _, a := range accessesOf(p, ns) {
				grants = append(grants, grant{userOf(p), namespace, a, false})
			}
		}
		if !all {
			for _, a := range accessesOf(p, elsewhere) {
				denials = append(denials, grant{userOf(p), namespace, a, grantedClusterWide(ct, a)})
			}
		}
	}
	return grants, denials
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

// applyCRD creates or updates a CRD for real. The tests of every package share one API
// server, and a CRD of the same name that another package's test created with a storage
// version this one does not serve cannot be replaced (the server keeps it until a storage
// migration): that CRD is left as it is, with a log line, and only it goes unchecked.
func applyCRD(t *testing.T, c *testcluster.Cluster, o *manifest.Object) {
	t.Helper()
	err := c.ApplyObject(o.Map)
	if err != nil && strings.Contains(err.Error(), "status.storedVersions") {
		t.Logf("CRD %s is not replaced: another test created it with a storage version this one does not serve (%v)", o.Name(), err)
		return
	}
	require.NoError(t, err, "CRD %s", o.Name())
}
