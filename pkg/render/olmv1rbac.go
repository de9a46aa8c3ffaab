package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/platform"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// The installer of a ClusterExtension (Options.OLMv1ServiceAccount): operator-controller
// before v1.11 installs a bundle with the permissions of a ServiceAccount the extension
// names, which must hold everything the install does (operator-controller v1.10's
// docs/howto/derive-service-account.md): manage the bundle's CRDs and objects, the
// operator's ServiceAccounts, Deployments, and the roles and bindings it generates, and hold
// every permission the CSV grants the operator (RBAC refuses to grant what the granter
// lacks). Names are used where the API allows: create, list and watch cannot be limited to
// names, and the roles and bindings operator-controller generates have names it derives
// (<package>.<hash>), so they are not limited either.

// installerRBAC is the ServiceAccount, ClusterRole and ClusterRoleBinding, and the Role and
// RoleBinding in the install namespace, that install a bundle for a ClusterExtension.
func (v *olmV1) installerRBAC(ce *manifest.Object, b *catalog.Bundle) ([]*manifest.Object, error) {
	c := b.Contents
	if c == nil {
		return nil, fmt.Errorf("bundle %s: its contents (CRDs, install strategy) are unknown, and the installer's permissions come from them (give a catalog with olm.bundle.object properties, or catalog extract --bundle-contents pull)", b.Name)
	}
	var rules installerRules
	// the extension's finalizers (clusters with OwnerReferencesPermissionEnforcement)
	rules.cluster = append(rules.cluster, rbacv1.PolicyRule{APIGroups: []string{olmV1Group}, Resources: []string{"clusterextensions/finalizers"},
		Verbs: []string{"update"}, ResourceNames: []string{ce.Name()}})
	rules.manageInstall(c)
	if err := rules.manageObjects(b.Name, c, v.resourceOf); err != nil {
		return nil, err
	}
	rules.holdGranted(c)
	return installerObjects(ce.Name()+"-installer", ce.String("spec", "namespace"), rules)
}

// installerRules are the installer's rules, cluster-wide and in the install namespace.
type installerRules struct{ cluster, local []rbacv1.PolicyRule }

// manage lets the installer create, list and watch a resource, and get, update, patch and
// delete the named objects of it (all of them without names).
func (ir *installerRules) manage(group, resource string, names []string, namespaced bool) {
	rules := []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"create", "list", "watch"}}}
	managed := rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get", "update", "patch", "delete"}}
	if len(names) > 0 {
		managed.ResourceNames = slices.Compact(slices.Sorted(slices.Values(names)))
	}
	rules = append(rules, managed)
	if namespaced {
		ir.local = append(ir.local, rules...)
	} else {
		ir.cluster = append(ir.cluster, rules...)
	}
}

// manageInstall covers what every install writes: the bundle's CRDs, the roles and bindings
// operator-controller generates from the CSV (names it derives), the operator's
// ServiceAccounts and Deployments.
func (ir *installerRules) manageInstall(c *catalog.Contents) {
	var crds []string
	for i := range c.CRDs {
		crds = append(crds, c.CRDName(i))
	}
	if len(crds) > 0 {
		ir.manage("apiextensions.k8s.io", "customresourcedefinitions", crds, false)
	}
	ir.manage("rbac.authorization.k8s.io", "clusterroles", nil, false)
	ir.manage("rbac.authorization.k8s.io", "clusterrolebindings", nil, false)
	ir.manage("rbac.authorization.k8s.io", "roles", nil, true)
	ir.manage("rbac.authorization.k8s.io", "rolebindings", nil, true)
	var accounts []string
	for _, p := range append(slices.Clone(c.Permissions), c.ClusterPermissions...) {
		accounts = append(accounts, p.ServiceAccountName)
	}
	if len(accounts) > 0 {
		ir.manage("", "serviceaccounts", accounts, true)
	}
	if len(c.Deployments) > 0 {
		ir.manage("apps", "deployments", c.Deployments, true)
	}
}

// manageObjects covers the bundle's other objects, by kind and name.
func (ir *installerRules) manageObjects(bundle string, c *catalog.Contents, resourceOf func(group, kind string) (string, bool, bool)) error {
	byResource := map[groupResource][]string{}
	scope := map[groupResource]bool{}
	for _, o := range c.Objects {
		group, _, found := strings.Cut(o.APIVersion, "/")
		if !found {
			group = ""
		}
		resource, namespaced, ok := resourceOf(group, o.Kind)
		if !ok {
			return fmt.Errorf("bundle %s: %s %s: no resource name known for kind %s", bundle, o.Kind, o.Name, o.Kind)
		}
		if group == "rbac.authorization.k8s.io" {
			continue // managed by manageInstall, without names (the bundle's own are among them)
		}
		k := groupResource{group: group, resource: resource}
		byResource[k] = append(byResource[k], o.Name)
		scope[k] = namespaced
	}
	keys := slices.SortedFunc(maps.Keys(byResource), func(a, b groupResource) int {
		return cmp.Or(strings.Compare(a.group, b.group), strings.Compare(a.resource, b.resource))
	})
	for _, k := range keys {
		ir.manage(k.group, k.resource, byResource[k], scope[k])
	}
	return nil
}

// holdGranted adds what the CSV grants the operator, which the installer must hold (RBAC's
// escalation rule); operator-controller grants `permissions` cluster-wide when it installs
// for all namespaces (what OLM v1 standard does). A rule that these already cover is
// dropped: the installer holds nothing twice.
func (ir *installerRules) holdGranted(c *catalog.Contents) {
	var granted []rbacv1.PolicyRule
	for _, p := range append(slices.Clone(c.ClusterPermissions), c.Permissions...) {
		granted = append(granted, p.Rules...)
	}
	ir.cluster = append(uncovered(ir.cluster, granted), granted...)
	ir.local = uncovered(ir.local, granted)
}

// installerObjects are the installer's ServiceAccount and the roles and bindings holding its
// rules (a Role and RoleBinding only when it has rules in the install namespace).
func installerObjects(name, namespace string, rules installerRules) ([]*manifest.Object, error) {
	labels := map[string]any{naming.ControlLabel: "true"}
	subject := []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": namespace}}
	out := []*manifest.Object{manifest.New(map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": name, "namespace": namespace, "labels": labels}})}
	for _, scope := range []struct {
		kind      string
		namespace string
		rules     []rbacv1.PolicyRule
	}{{"ClusterRole", "", rules.cluster}, {"Role", namespace, rules.local}} {
		if scope.kind == "Role" && len(scope.rules) == 0 {
			continue
		}
		value, err := manifest.ToValue(dedupeRules(scope.rules))
		if err != nil {
			return nil, err
		}
		meta := func() map[string]any {
			m := map[string]any{"name": name, "labels": labels}
			if scope.namespace != "" {
				m["namespace"] = scope.namespace
			}
			return m
		}
		out = append(out,
			manifest.New(map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": scope.kind,
				"metadata": meta(), "rules": value}),
			manifest.New(map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": scope.kind + "Binding",
				"metadata": meta(),
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": scope.kind, "name": name},
				"subjects": subject}))
	}
	return out, nil
}

// resourceOf is the resource name and scope of a kind: built-in, or served by a known CRD.
func (v *olmV1) resourceOf(group, kind string) (string, bool, bool) {
	if b, ok := platform.LookupBuiltin(group, kind); ok {
		return b.Plural, b.Namespaced, true
	}
	if s := v.servedKindOf(group+"/v", kind); s != nil && s.def != nil {
		return s.def.Plural, s.def.Namespaced, true
	}
	return "", false, false
}

// dedupeRules drops rules that repeat an earlier one exactly, keeping the order.
func dedupeRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	seen := map[string]bool{}
	for _, rule := range rules {
		k := fmt.Sprint(rule.APIGroups, rule.Resources, rule.Verbs, rule.ResourceNames, rule.NonResourceURLs)
		if !seen[k] {
			seen[k] = true
			out = append(out, rule)
		}
	}
	return out
}

// withInstaller adds, when asked, the installer ServiceAccount to a ClusterExtension and
// returns the objects that grant it what the install needs.
func (v *olmV1) withInstaller(p *subscriptionPlan, ce *manifest.Object) []*manifest.Object {
	if !v.opts.OLMv1ServiceAccount {
		return nil
	}
	about, field := p.about()
	b := bundleInstalledBy(v.subscribed, p)
	if b == nil {
		v.add(diag.Errorf(about, field, "ClusterExtension %s: the bundle it installs is not known, so its installer's permissions cannot be derived (give a catalog)", ce.Name()))
		return nil
	}
	objs, err := v.installerRBAC(ce, b)
	if err != nil {
		v.add(diag.Errorf(about, field, "ClusterExtension %s: %v", ce.Name(), err))
		return nil
	}
	manifest.EnsureMap(ce.Map, "spec")["serviceAccount"] = map[string]any{"name": ce.Name() + "-installer"}
	return objs
}

// uncovered keeps the rules that the granted ones do not already allow in full.
func uncovered(rules, granted []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, rule := range rules {
		if !coveredBy(rule, granted) {
			out = append(out, rule)
		}
	}
	return out
}

// coveredBy reports whether every request a resource rule allows is allowed by one of
// granted: each group, resource and verb, on each of its names (or on any name).
func coveredBy(rule rbacv1.PolicyRule, granted []rbacv1.PolicyRule) bool {
	if len(rule.NonResourceURLs) > 0 {
		return false
	}
	names := rule.ResourceNames
	if len(names) == 0 {
		names = []string{""} // any name: only a rule without names covers it
	}
	for _, g := range rule.APIGroups {
		for _, res := range rule.Resources {
			for _, verb := range rule.Verbs {
				for _, name := range names {
					if !slices.ContainsFunc(granted, func(by rbacv1.PolicyRule) bool { return allows(by, g, res, verb, name) }) {
						return false
					}
				}
			}
		}
	}
	return true
}

func allows(by rbacv1.PolicyRule, group, resource, verb, name string) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, v) || slices.Contains(list, "*") }
	if !has(by.APIGroups, group) || !has(by.Resources, resource) || !has(by.Verbs, verb) {
		return false
	}
	if len(by.ResourceNames) == 0 {
		return true
	}
	return name != "" && slices.Contains(by.ResourceNames, name)
}

// groupResource names a resource in an API group.
type groupResource struct {
	group, resource string
}
