package plan

import (
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
