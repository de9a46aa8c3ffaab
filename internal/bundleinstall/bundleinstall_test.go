package bundleinstall_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/odlm-render/odlm-render/internal/bundleinstall"
	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// realBundle reads a real bundle folder of testdata/bundles (third-party: read from the
// reference folder, t skips without it), with the install modes its CSV gives.
func realBundle(t *testing.T, dir string) bundleinstall.Bundle {
	t.Helper()
	c, err := fbc.ContentsFromFolder(refdata.Testdata(t, "bundles/"+dir+"/manifests"))
	require.NoError(t, err)
	require.NotNil(t, c.Install)
	modes := map[string][]v1alpha1.InstallModeType{
		"kube-green-0.7.1":               {v1alpha1.InstallModeTypeAllNamespaces},
		"keycloak-operator-26.7.1":       {v1alpha1.InstallModeTypeOwnNamespace, v1alpha1.InstallModeTypeSingleNamespace, v1alpha1.InstallModeTypeAllNamespaces},
		"nfs-provisioner-operator-0.0.9": {v1alpha1.InstallModeTypeOwnNamespace, v1alpha1.InstallModeTypeAllNamespaces},
	}[dir]
	b := bundleinstall.Bundle{Name: c.Install.CSVName, Contents: c}
	for _, m := range []v1alpha1.InstallModeType{v1alpha1.InstallModeTypeOwnNamespace, v1alpha1.InstallModeTypeSingleNamespace, v1alpha1.InstallModeTypeMultiNamespace, v1alpha1.InstallModeTypeAllNamespaces} {
		b.InstallModes = append(b.InstallModes, v1alpha1.InstallMode{Type: m, Supported: slices.Contains(modes, m)})
	}
	return b
}

func refs(res bundleinstall.Result) []string {
	var out []string
	for _, o := range res.Objects {
		role := "prerequisite"
		if o.Role == bundleinstall.Workload {
			role = "workload"
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s", role, o.Kind(), o.Namespace(), o.Name()))
	}
	return out
}

// TestRenderRealBundles renders the real bundles in each install mode they support and
// checks what lands where: ServiceAccounts (none for the namespace's default account), Roles
// in each target namespace or, for all namespaces, ClusterRoles with OLM's namespaces rule,
// the Deployment's namespace annotations.
func TestRenderRealBundles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir string
		targets   []string
		roles     []string // namespaces of the Roles
		cluster   int      // ClusterRoles written for the permissions
		sa        bool     // a ServiceAccount is written
	}{
		{"keycloak own namespace", "keycloak-operator-26.7.1", []string{"op"}, []string{"op"}, 1, true},
		{"keycloak single namespace", "keycloak-operator-26.7.1", []string{"apps"}, []string{"apps"}, 1, true},
		{"keycloak all namespaces", "keycloak-operator-26.7.1", []string{""}, nil, 2, true},
		{"nfs own namespace, default account", "nfs-provisioner-operator-0.0.9", []string{"op"}, []string{"op"}, 1, false},
		{"kube-green all namespaces", "kube-green-0.7.1", []string{""}, nil, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := realBundle(t, tc.dir)
			res, err := bundleinstall.Render(b, bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: tc.targets, Certs: bundleinstall.CertManager})
			require.NoError(t, err)
			var roles []string
			clusterRoles, accounts := 0, 0
			for _, o := range res.Objects {
				switch o.Kind() {
				case "Role":
					roles = append(roles, o.Namespace())
				case "ClusterRole":
					if strings.HasPrefix(o.Name(), b.Contents.Install.CSVName) {
						clusterRoles++
					}
				case "ServiceAccount":
					accounts++
					assert.NotEqual(t, "default", o.Name())
				case "Deployment":
					ann := manifest.Get(o.Map, "spec", "template", "metadata", "annotations")
					assert.Equal(t, strings.Join(tc.targets, ","), manifest.Get(ann, "olm.targetNamespaces"))
					assert.Equal(t, "op", manifest.Get(ann, "olm.operatorNamespace"))
					assert.Equal(t, "op", o.Namespace())
				}
			}
			assert.Equal(t, tc.roles, roles, "%v", refs(res))
			assert.Equal(t, tc.cluster, clusterRoles, "%v", refs(res))
			assert.Equal(t, tc.sa, accounts > 0, "%v", refs(res))
		})
	}
}

// TestNamespacesRuleWhenLifted checks that permissions lifted to the cluster for all
// namespaces get OLM's get/list/watch namespaces rule, and that they keep it out otherwise.
func TestNamespacesRuleWhenLifted(t *testing.T) {
	t.Parallel()
	b := realBundle(t, "keycloak-operator-26.7.1")
	hasRule := func(res bundleinstall.Result, kind string) bool {
		for _, o := range res.Objects {
			if o.Kind() != kind {
				continue
			}
			for _, r := range o.Map["rules"].([]any) {
				if fmt.Sprint(manifest.Get(r, "resources")) == "[namespaces]" && fmt.Sprint(manifest.Get(r, "verbs")) == "[get list watch]" {
					return true
				}
			}
		}
		return false
	}
	all, err := bundleinstall.Render(b, bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}})
	require.NoError(t, err)
	assert.True(t, hasRule(all, "ClusterRole"))
	own, err := bundleinstall.Render(b, bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{"op"}})
	require.NoError(t, err)
	assert.False(t, hasRule(own, "Role"))
}

// TestRenderRefuses lists what stops a render, each error naming the reason.
func TestRenderRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir string
		opts      bundleinstall.Options
		change    func(*catalog.Contents)
		want      string
	}{
		{"unsupported mode", "kube-green-0.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{"op"}, Certs: bundleinstall.CertNone},
			nil, "does not support the OwnNamespace install mode"},
		{"multi namespace not supported", "keycloak-operator-26.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{"a", "b"}},
			nil, "does not support the MultiNamespace install mode"},
		{"selector OperatorGroup", "keycloak-operator-26.7.1", bundleinstall.Options{InstallNamespace: "op"},
			nil, "selects namespaces by label"},
		{"webhooks without a provider", "kube-green-0.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}},
			nil, "choose who provides their serving certificates"},
		{"api services", "keycloak-operator-26.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{"op"}},
			func(c *catalog.Contents) { c.Install.APIServices = []string{"v1.metrics.example.com"} }, "serves APIServices v1.metrics.example.com"},
		{"operator conditions", "keycloak-operator-26.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{"op"}},
			func(c *catalog.Contents) {
				c.Permissions[0].Rules = append(c.Permissions[0].Rules, rbacRule("operators.coreos.com", "operatorconditions"))
			}, "reads OperatorConditions"},
		{"webhook without its deployment", "kube-green-0.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}, Certs: bundleinstall.CertNone},
			func(c *catalog.Contents) { c.Install.Webhooks[0].DeploymentName = "gone" }, `names deployment "gone"`},
		{"webhook on every group", "kube-green-0.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}, Certs: bundleinstall.CertNone},
			func(c *catalog.Contents) { c.Install.Webhooks[0].Rules[0].APIGroups = []string{"*"} }, `may not intercept API group "*"`},
		{"a namespace the platform owns", "keycloak-operator-26.7.1", bundleinstall.Options{InstallNamespace: "kube-system", TargetNamespaces: []string{"kube-system"}},
			nil, `namespace kube-system is the platform's (the API server creates it`},
		{"no contents", "kube-green-0.7.1", bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}},
			func(c *catalog.Contents) { c.Install = nil }, "are not known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := realBundle(t, tc.dir)
			if tc.change != nil {
				tc.change(b.Contents)
			}
			_, err := bundleinstall.Render(b, tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestRenderRefusesPlatformObjects: a bundle manifest named as an object the platform owns
// (the bootstrap policy's RBAC, kubeadm's, the reserved PriorityClasses) would overwrite it
// when applied: refused, naming the rule.
func TestRenderRefusesPlatformObjects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, name, want string }{
		{"ClusterRole", "system:basic-user", `"system:" names are the API server's bootstrap policy`},
		{"ClusterRoleBinding", "cluster-admin", "cluster-admin is one of the API server's bootstrap roles"},
		{"ClusterRole", "view", "view is one of the API server's bootstrap roles"},
		{"RoleBinding", "kubeadm:nodes-kubeadm-config", `"kubeadm:" names are kubeadm's`},
		{"Role", "system:controller:bootstrap-signer", `"system:" names`},
		{"PriorityClass", "system-node-critical", `"system-" PriorityClasses`},
	} {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			t.Parallel()
			b := realBundle(t, "nfs-provisioner-operator-0.0.9")
			c := *b.Contents
			c.Objects = append(slices.Clone(c.Objects), catalog.ObjectRef{Kind: tc.kind, Name: tc.name})
			doc := fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":%q,"metadata":{"name":%q}}`, tc.kind, tc.name)
			c.Manifests = append(slices.Clone(c.Manifests), json.RawMessage(doc))
			b.Contents = &c
			_, err := bundleinstall.Render(b, bundleinstall.Options{InstallNamespace: "op", TargetNamespaces: []string{""}})
			require.ErrorContains(t, err, "would replace an object the platform owns ("+strings.SplitN(tc.want, `"`, 2)[0])
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func rbacRule(group, resource string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get"}}
}
