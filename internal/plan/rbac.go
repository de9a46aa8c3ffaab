package plan

import (
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Rule scopes.
const (
	ScopeNamespace = "namespace"
	ScopeCluster   = "cluster"
)

// verbsThatEscalate are the verbs that let a subject grant itself more.
var verbsThatEscalate = []string{"escalate", "bind", "impersonate"}

// flatten lists every rule of the namespaced and the cluster-wide permissions.
func flatten(perms, clusterPerms []v1alpha1.StrategyDeploymentPermissions) []Rule {
	out := []Rule{}
	for _, scoped := range []struct {
		scope string
		perms []v1alpha1.StrategyDeploymentPermissions
	}{{ScopeNamespace, perms}, {ScopeCluster, clusterPerms}} {
		for _, p := range scoped.perms {
			for _, r := range p.Rules {
				out = append(out, newRule(scoped.scope, p.ServiceAccountName, r))
			}
		}
	}
	return out
}

// newRule is a policy rule with its lists sorted and never nil.
func newRule(scope, sa string, r rbacv1.PolicyRule) Rule {
	return Rule{Scope: scope, ServiceAccount: sa, APIGroups: sorted(r.APIGroups), Resources: sorted(r.Resources),
		ResourceNames: sorted(r.ResourceNames), NonResourceURLs: sorted(r.NonResourceURLs), Verbs: sorted(r.Verbs), Escalations: []string{}}
}

// sorted is a sorted copy of s, [] when empty.
func sorted(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// key identifies a rule, with (withScope) or without its scope.
func (r Rule) key(withScope bool) string {
	parts := []string{r.ServiceAccount, strings.Join(r.APIGroups, ","), strings.Join(r.Resources, ","),
		strings.Join(r.ResourceNames, ","), strings.Join(r.NonResourceURLs, ","), strings.Join(r.Verbs, ",")}
	if withScope {
		parts = append([]string{r.Scope}, parts...)
	}
	return strings.Join(parts, "|")
}

// diffRules lists the rules only in newRules (added, with their escalations) and only in
// oldRules (removed), each sorted.
func diffRules(oldRules, newRules []Rule) RBAC {
	oldKeys, newKeys, oldNamespaced := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range oldRules {
		oldKeys[r.key(true)] = true
		if r.Scope == ScopeNamespace {
			oldNamespaced[r.key(false)] = true
		}
	}
	for _, r := range newRules {
		newKeys[r.key(true)] = true
	}
	out := RBAC{Added: []Rule{}, Removed: []Rule{}}
	for _, r := range newRules {
		if !oldKeys[r.key(true)] {
			r.Escalations = escalations(r, oldNamespaced[r.key(false)])
			out.Added = appendOnce(out.Added, r)
		}
	}
	for _, r := range oldRules {
		if !newKeys[r.key(true)] {
			out.Removed = appendOnce(out.Removed, r)
		}
	}
	sortRules(out.Added)
	sortRules(out.Removed)
	return out
}

// appendOnce appends r unless a rule of the same key is there.
func appendOnce(rules []Rule, r Rule) []Rule {
	if slices.ContainsFunc(rules, func(x Rule) bool { return x.key(true) == r.key(true) }) {
		return rules
	}
	return append(rules, r)
}

// sortRules orders rules by their key.
func sortRules(rules []Rule) {
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.key(true), b.key(true)) })
}

// escalations says why an added rule widens what the operator may do.
func escalations(r Rule, wasNamespaced bool) []string {
	out := []string{}
	if slices.Contains(r.Verbs, "*") {
		out = append(out, "any verb")
	}
	if slices.Contains(r.Resources, "*") {
		out = append(out, "any resource")
	}
	if slices.Contains(r.APIGroups, "*") {
		out = append(out, "any API group")
	}
	if slices.Contains(r.Resources, "secrets") {
		out = append(out, "secrets")
	}
	for _, v := range verbsThatEscalate {
		if slices.Contains(r.Verbs, v) {
			out = append(out, "verb "+v)
		}
	}
	if wasNamespaced && r.Scope == ScopeCluster {
		out = append(out, "moved from namespaced to cluster-wide")
	}
	return out
}
