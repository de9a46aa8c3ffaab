package bundleinstall

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
)

const (
	rbacAPIVersion = "rbac.authorization.k8s.io/v1"
	// defaultServiceAccount is the namespace's own account, which permissions without a
	// serviceAccountName use; it is never written.
	defaultServiceAccount = "default"
)

func saNameOrDefault(name string) string { return cmp.Or(name, defaultServiceAccount) }

// serviceAccounts writes one ServiceAccount per account the permissions name (sorted),
// except the namespace's default one.
func serviceAccounts(in *install) ([]Object, error) {
	names := map[string]bool{}
	for _, perms := range [][]v1alpha1.StrategyDeploymentPermissions{in.contents.Permissions, in.contents.ClusterPermissions} {
		for _, p := range perms {
			names[saNameOrDefault(p.ServiceAccountName)] = true
		}
	}
	delete(names, defaultServiceAccount)
	var out []*manifest.Object
	for _, name := range slices.Sorted(maps.Keys(names)) {
		out = append(out, newObject("v1", "ServiceAccount", in.opts.InstallNamespace, name))
	}
	return prerequisites(out...), nil
}

// namespacedPermissions writes a Role and RoleBinding per permission in every target
// namespace; for all namespaces, clusterPermissions writes them as cluster roles instead.
func namespacedPermissions(in *install) ([]Object, error) {
	if allNamespaces(in.opts.TargetNamespaces) {
		return nil, nil
	}
	var out []*manifest.Object
	for _, ns := range in.opts.TargetNamespaces {
		for _, p := range in.contents.Permissions {
			name, err := in.rbacName(p, "")
			if err != nil {
				return nil, err
			}
			role, err := rulesObject("Role", ns, name, p.Rules)
			if err != nil {
				return nil, err
			}
			out = append(out, role, in.binding("RoleBinding", ns, name, p))
		}
	}
	return prerequisites(out...), nil
}

// namespacesRule is the rule OLM adds when it lifts an operator's namespaced permissions to
// the cluster for an all-namespaces install: it may then need to list the namespaces.
var namespacesRule = rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"namespaces"}}

// clusterPermissions writes a ClusterRole and ClusterRoleBinding per cluster permission, and,
// for all namespaces, per namespaced permission (with namespacesRule).
func clusterPermissions(in *install) ([]Object, error) {
	perms := slices.Clone(in.contents.ClusterPermissions)
	if allNamespaces(in.opts.TargetNamespaces) {
		for _, p := range in.contents.Permissions {
			p.Rules = append(slices.Clone(p.Rules), namespacesRule)
			perms = append(perms, p)
		}
	}
	var out []*manifest.Object
	for _, p := range perms {
		name, err := in.rbacName(p, in.opts.InstallNamespace)
		if err != nil {
			return nil, err
		}
		role, err := rulesObject("ClusterRole", "", name, p.Rules)
		if err != nil {
			return nil, err
		}
		out = append(out, role, in.binding("ClusterRoleBinding", "", name, p))
	}
	return prerequisites(out...), nil
}

// rbacName is the name of a permission's role and binding: the CSV's name and the account's,
// and a hash of the permission, so that two permissions of one account do not collide and a
// changed permission gets a new name. For a ClusterRole and ClusterRoleBinding, namespace (the
// install's) is hashed in too: two installs of one bundle in two namespaces would otherwise
// write one cluster-scoped name with two subject lists, each sync rebinding the other's and
// each prune deleting it (as OLM v0 does; operator-controller, which installs a bundle once
// per cluster, does not).
func (in *install) rbacName(p v1alpha1.StrategyDeploymentPermissions, namespace string) (string, error) {
	var hashed any = p
	if namespace != "" {
		hashed = struct {
			Permissions v1alpha1.StrategyDeploymentPermissions `json:"permissions"`
			Namespace   string                                 `json:"namespace"`
		}{p, namespace}
	}
	tree, err := manifest.ToValue(hashed)
	if err != nil {
		return "", fmt.Errorf("bundle %s: permissions of %s: %w", in.bundle.Name, saNameOrDefault(p.ServiceAccountName), err)
	}
	hash, err := naming.DataHash(tree)
	if err != nil {
		return "", fmt.Errorf("bundle %s: permissions of %s: %w", in.bundle.Name, saNameOrDefault(p.ServiceAccountName), err)
	}
	return objectName(in.strategy.CSVName+"-"+saNameOrDefault(p.ServiceAccountName), hash), nil
}

func rulesObject(kind, namespace, name string, rules []rbacv1.PolicyRule) (*manifest.Object, error) {
	o := newObject(rbacAPIVersion, kind, namespace, name)
	tree, err := manifest.ToValue(rules)
	if err != nil {
		return nil, fmt.Errorf("%s %s: rules: %w", kind, name, err)
	}
	if tree == nil {
		tree = []any{}
	}
	o.Map["rules"] = tree
	return o, nil
}

// binding binds a role to the permission's ServiceAccount in the install namespace.
func (in *install) binding(kind, namespace, name string, p v1alpha1.StrategyDeploymentPermissions) *manifest.Object {
	o := newObject(rbacAPIVersion, kind, namespace, name)
	roleKind := "Role"
	if kind == "ClusterRoleBinding" {
		roleKind = "ClusterRole"
	}
	o.Map["subjects"] = []any{map[string]any{"kind": "ServiceAccount", "name": saNameOrDefault(p.ServiceAccountName), "namespace": in.opts.InstallNamespace}}
	o.Map["roleRef"] = map[string]any{"apiGroup": rbacv1.GroupName, "kind": roleKind, "name": name}
	return o
}

// customResourceDefinitions writes the bundle's CRDs, each with the conversion webhook the
// CSV gives it (and the certificate provider's CA injection).
func customResourceDefinitions(in *install) ([]Object, error) {
	conversionOf := map[string]v1alpha1.WebhookDescription{}
	for _, wh := range in.strategy.Webhooks {
		if wh.Type == v1alpha1.ConversionWebhook {
			for _, crd := range wh.ConversionCRDs {
				conversionOf[crd] = wh
			}
		}
	}
	var out []*manifest.Object
	for i := range in.contents.CRDs {
		m, err := in.contents.CRD(i)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: CRD %s: %w", in.bundle.Name, in.contents.CRDName(i), err)
		}
		crd := manifest.New(m)
		if wh, ok := conversionOf[crd.Name()]; ok {
			if err := in.convertWith(crd, wh); err != nil {
				return nil, err
			}
		}
		out = append(out, crd)
	}
	return prerequisites(out...), nil
}

// convertWith points a CRD's conversion at its webhook's Service.
func (in *install) convertWith(crd *manifest.Object, wh v1alpha1.WebhookDescription) error {
	if preserve, _ := manifest.Get(crd.Map, "spec", "preserveUnknownFields").(bool); preserve {
		return fmt.Errorf("bundle %s: CRD %s has spec.preserveUnknownFields true, so the API server would not call conversion webhook %s", in.bundle.Name, crd.Name(), webhookName(wh))
	}
	path := "/"
	if wh.WebhookPath != nil {
		path = *wh.WebhookPath
	}
	certs := in.certsFor(wh.DeploymentName)
	versions := make([]any, len(wh.AdmissionReviewVersions))
	for i, v := range wh.AdmissionReviewVersions {
		versions[i] = v
	}
	manifest.EnsureMap(crd.Map, "spec")["conversion"] = map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"clientConfig": map[string]any{"service": map[string]any{
				"namespace": in.opts.InstallNamespace, "name": certs.service, "path": path, "port": json.Number(fmt.Sprint(containerPort(wh))),
			}},
			"conversionReviewVersions": versions,
		},
	}
	in.injectCA(crd, certs)
	return nil
}

// supportedKinds are the kinds OLM installs from a bundle's manifests besides the CSV and
// CRDs (operator-registry's list), and whether they are namespaced. OLM's list calls
// VerticalPodAutoscaler cluster-scoped; it is namespaced, and written so here.
var supportedKinds = map[string]bool{
	"ClusterRole": false, "ClusterRoleBinding": false, "Service": true, "ServiceAccount": true,
	"Role": true, "RoleBinding": true, "PrometheusRule": true, "ServiceMonitor": true, "Secret": true,
	"ConfigMap": true, "PodDisruptionBudget": true, "PriorityClass": false, "VerticalPodAutoscaler": true,
	"ConsoleYAMLSample": false,
}

// bootstrapRoles are the ClusterRoles and ClusterRoleBindings the API server's bootstrap
// policy creates without the "system:" prefix (its user-facing roles).
var bootstrapRoles = map[string]bool{"cluster-admin": true, "admin": true, "edit": true, "view": true}

// platformOwned names the rule by which an object of the bundle would replace one the platform
// owns ("" when it would not): RBAC named as the API server's bootstrap policy names its own
// (the "system:" prefix, kubeadm's "kubeadm:", cluster-admin, admin, edit, view), and the
// PriorityClasses the API server reserves (the "system-" prefix). operator-controller refuses
// to touch objects it does not own; without OLM nothing would stop the apply.
func platformOwned(kind, name string) string {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		switch {
		case strings.HasPrefix(name, "system:"):
			return `the "system:" names are the API server's bootstrap policy`
		case strings.HasPrefix(name, "kubeadm:"):
			return `the "kubeadm:" names are kubeadm's`
		case bootstrapRoles[name] && (kind == "ClusterRole" || kind == "ClusterRoleBinding"):
			return name + " is one of the API server's bootstrap roles"
		}
	case "PriorityClass":
		if strings.HasPrefix(name, "system-") {
			return `the "system-" PriorityClasses are the API server's`
		}
	}
	return ""
}

// otherManifests writes the bundle's other manifests, namespaced ones in the install namespace.
func otherManifests(in *install) ([]Object, error) {
	var out []*manifest.Object
	for i, ref := range in.contents.Objects {
		namespaced, ok := supportedKinds[ref.Kind]
		if !ok {
			return nil, fmt.Errorf("bundle %s: manifest %s %s is of a kind OLM does not install from a bundle", in.bundle.Name, ref.Kind, ref.Name)
		}
		if i >= len(in.contents.Manifests) {
			return nil, fmt.Errorf("the contents of bundle %s do not hold its manifest %s %s (a snapshot written before they were kept: write it again)", in.bundle.Name, ref.Kind, ref.Name)
		}
		m, err := in.contents.Manifest(i)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: manifest %s %s: %w", in.bundle.Name, ref.Kind, ref.Name, err)
		}
		o := manifest.New(m)
		if rule := platformOwned(ref.Kind, o.Name()); rule != "" {
			return nil, fmt.Errorf("bundle %s: manifest %s %s would replace an object the platform owns (%s): installing it without OLM would overwrite it, so it is refused", in.bundle.Name, ref.Kind, o.Name(), rule)
		}
		if namespaced {
			manifest.EnsureMap(o.Map, "metadata")["namespace"] = in.opts.InstallNamespace
		} else if meta, ok := o.Map["metadata"].(map[string]any); ok {
			delete(meta, "namespace")
		}
		out = append(out, o)
	}
	return prerequisites(out...), nil
}
