package plan

import (
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	rbacv1 "k8s.io/api/rbac/v1"
)

func perms(sa string, rules ...rbacv1.PolicyRule) []v1alpha1.StrategyDeploymentPermissions {
	return []v1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: sa, Rules: rules}}
}

func TestEscalations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		rule          rbacv1.PolicyRule
		wasNamespaced bool
		want          []string
	}{
		{"plain read", rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get"}}, false, []string{}},
		{"wildcards", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}, false,
			[]string{"any verb", "any resource", "any API group"}},
		{"secrets", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}, false, []string{"secrets"}},
		{"escalating verbs", rbacv1.PolicyRule{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"},
			Verbs: []string{"bind", "escalate", "impersonate"}}, false, []string{"verb escalate", "verb bind", "verb impersonate"}},
		{"moved to cluster", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}, true,
			[]string{"moved from namespaced to cluster-wide"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, escalations(newRule(ScopeCluster, "sa", tc.rule), tc.wasNamespaced))
		})
	}
}

func TestDiffRules(t *testing.T) {
	t.Parallel()
	cm := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list", "get"}}
	cmSorted := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}
	for _, tc := range []struct {
		name               string
		oldNS, oldCluster  []v1alpha1.StrategyDeploymentPermissions
		newNS, newCluster  []v1alpha1.StrategyDeploymentPermissions
		added, removed     int
		escalatingAddition bool
	}{
		{"same rules, verbs in another order", perms("sa", cm), nil, perms("sa", cmSorted), nil, 0, 0, false},
		{"rule added", perms("sa", cm), nil, perms("sa", cm, pods), nil, 1, 0, false},
		{"rule removed", perms("sa", cm, pods), nil, perms("sa", cm), nil, 0, 1, false},
		{"moved to cluster", perms("sa", cm), nil, nil, perms("sa", cm), 1, 1, true},
		{"another service account", perms("sa", cm), nil, perms("other", cm), nil, 1, 1, false},
		{"nothing before", nil, nil, perms("sa", cm), nil, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := diffRules(flatten(tc.oldNS, tc.oldCluster), flatten(tc.newNS, tc.newCluster))
			assert.Len(t, got.Added, tc.added)
			assert.Len(t, got.Removed, tc.removed)
			assert.NotNil(t, got.Added)
			assert.NotNil(t, got.Removed)
			if tc.added > 0 {
				assert.Equal(t, tc.escalatingAddition, len(got.Added[0].Escalations) > 0)
			}
		})
	}
}

// TestManifestRulesCountAsPermissions: RBAC among a bundle's manifests grants permissions as
// the CSV's do, with its escalations: cluster-admin bound to every authenticated user, a
// Role of the manifests bound to a ServiceAccount, a ClusterRole aggregated into admin; an
// unbound role grants nothing.
func TestManifestRulesCountAsPermissions(t *testing.T) {
	t.Parallel()
	manifests := []map[string]any{
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "innocent-name"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": []any{map[string]any{"kind": "Group", "name": "system:authenticated", "apiGroup": "rbac.authorization.k8s.io"}}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": "reader"},
			"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "verbs": []any{"get"}}}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": "reader"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "operator"}}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "extra", "labels": map[string]any{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}},
			"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"nodes"}, "verbs": []any{"delete"}}}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "unbound"},
			"rules": []any{map[string]any{"apiGroups": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}}}},
	}
	got := diffRules(nil, manifestRules(manifests))
	var escalated []string
	for _, r := range got.Added {
		escalated = append(escalated, r.Scope+" "+r.ServiceAccount+": "+strings.Join(r.Escalations, ", "))
	}
	assert.Equal(t, []string{
		"cluster everyone bound to admin: aggregated into the platform role admin",
		"cluster group system:authenticated: any verb, any resource, any API group, the platform role cluster-admin bound, granted to every authenticated user",
		"namespace operator: secrets",
	}, escalated)
	assert.Equal(t, 3, Plan{Operators: []Operator{{RBAC: got}}}.Unsafe(), "each escalation counts for --fail-on unsafe")
}
