package plan

import (
	"encoding/json"
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
			for _, e := range escalations(r, oldNamespaced[r.key(false)]) {
				if !slices.Contains(r.Escalations, e) {
					r.Escalations = append(r.Escalations, e)
				}
			}
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

// platformRoles are the API server's bootstrap ClusterRoles a bundle's binding may name, and
// what each grants, as a rule (cluster-admin: everything; the others: a rule naming them,
// each an escalation).
var platformRoles = map[string]rbacv1.PolicyRule{
	"cluster-admin": {APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
	"admin":         {APIGroups: []string{"*"}, Resources: []string{"(the platform role admin)"}, Verbs: []string{"*"}},
	"edit":          {APIGroups: []string{"*"}, Resources: []string{"(the platform role edit)"}, Verbs: []string{"*"}},
	"view":          {APIGroups: []string{"*"}, Resources: []string{"(the platform role view)"}, Verbs: []string{"get", "list", "watch"}},
}

// everyone are the groups a binding to which grants its rules to every user or workload.
var everyone = map[string]bool{"system:authenticated": true, "system:unauthenticated": true, "system:serviceaccounts": true}

// aggregateLabels are the labels by which a ClusterRole's rules join a platform role, and so
// reach everyone bound to it.
var aggregateLabels = []string{"rbac.authorization.k8s.io/aggregate-to-admin", "rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-view"}

// manifestRules are the permissions the RBAC among a bundle's manifests grants: each binding's
// rules (of a role among the manifests, or of the platform role it names) for each of its
// subjects, and the rules of a ClusterRole that aggregates into a platform role. Escalations
// are marked as for the CSV's rules, and so are a platform role bound, a group of every user
// bound, and a role aggregated into a platform role. Unbound roles grant nothing.
func manifestRules(manifests []map[string]any) []Rule {
	roles := map[string][]rbacv1.PolicyRule{}
	for _, m := range manifests {
		kind, _ := m["kind"].(string)
		if kind != "ClusterRole" && kind != "Role" {
			continue
		}
		var role rbacv1.ClusterRole
		if decodeInto(m, &role) != nil {
			continue
		}
		roles[kind+"/"+role.Name] = role.Rules
	}
	out := []Rule{}
	for _, m := range manifests {
		kind, _ := m["kind"].(string)
		switch kind {
		case "ClusterRole":
			var role rbacv1.ClusterRole
			if decodeInto(m, &role) != nil {
				continue
			}
			for _, label := range aggregateLabels {
				if role.Labels[label] == "true" {
					for _, r := range role.Rules {
						rule := newRule(ScopeCluster, "everyone bound to "+strings.TrimPrefix(label, "rbac.authorization.k8s.io/aggregate-to-"), r)
						rule.Escalations = append(escalations(rule, false), "aggregated into the platform role "+strings.TrimPrefix(label, "rbac.authorization.k8s.io/aggregate-to-"))
						out = append(out, rule)
					}
				}
			}
		case "ClusterRoleBinding", "RoleBinding":
			var binding rbacv1.RoleBinding
			if decodeInto(m, &binding) != nil {
				continue
			}
			scope := ScopeNamespace
			if kind == "ClusterRoleBinding" {
				scope = ScopeCluster
			}
			rules, found := roles[binding.RoleRef.Kind+"/"+binding.RoleRef.Name]
			platform := ""
			if !found && binding.RoleRef.Kind == "ClusterRole" {
				if r, ok := platformRoles[binding.RoleRef.Name]; ok {
					rules, platform = []rbacv1.PolicyRule{r}, binding.RoleRef.Name
				}
			}
			for _, s := range binding.Subjects {
				subject := subjectText(s)
				for _, r := range rules {
					rule := newRule(scope, subject, r)
					rule.Escalations = escalations(rule, false)
					if platform != "" {
						rule.Escalations = append(rule.Escalations, "the platform role "+platform+" bound")
					}
					if s.Kind == "Group" && everyone[s.Name] {
						rule.Escalations = append(rule.Escalations, "granted to every "+strings.TrimPrefix(s.Name, "system:")+" user")
					}
					out = append(out, rule)
				}
			}
		}
	}
	return out
}

// subjectText names a binding's subject: a ServiceAccount by name (as the CSV's rules name
// theirs), others by kind and name.
func subjectText(s rbacv1.Subject) string {
	if s.Kind == "ServiceAccount" {
		return s.Name
	}
	return strings.ToLower(s.Kind) + " " + s.Name
}

// decodeInto decodes a manifest into a typed object.
func decodeInto(m map[string]any, v any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
