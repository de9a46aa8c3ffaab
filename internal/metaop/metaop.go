// Package metaop reads the custom resources of IBM's Meta Operator, ODLM's predecessor
// (group operator.ibm.com/v1alpha1: MetaOperatorCatalog, MetaOperatorConfig,
// MetaOperatorSet), and converts them into the equivalent ODLM custom resources.
//
// A Catalog, a Config and a Set of the same name and namespace form one group, converted as:
//
//   - MetaOperatorCatalog → OperandRegistry of the same name and namespace: one entry per
//     catalog operator, in order (name, namespace, packageName, channel, sourceName,
//     sourceNamespace, installPlanApproval, targetNamespaces). The Set's `channel` overrides
//     the catalog's. `scope` is left out (ODLM's default, private): the only request of a
//     converted registry is the converted Set, in the registry's namespace. `targetNamespaces`
//     is always written: the Meta Operator gave its OperatorGroup the catalog's list as is, so
//     an operator without one got an OperatorGroup without targetNamespaces (all
//     namespaces), which ODLM reproduces for `targetNamespaces: []` (its own default would
//     target only the operator's namespace).
//   - MetaOperatorConfig → OperandConfig of the same name and namespace, services copied
//     (name and spec: the CR kind → fragment merged into the CSV's alm-example, exactly
//     ODLM's OperandConfig semantics).
//   - MetaOperatorSet → OperandRequest of the same name and namespace, one block naming the
//     registry, whose operands are the Set services with `state: present`, in Set order.
//     Absent services (and catalog operators the Set does not name) are left out: the Meta
//     Operator installs nothing by default.
//
// Labels and annotations of the Meta CRs are copied (the kubectl last-applied annotation
// excepted), so a local-config input stays local-config; status and cluster fields are not.
//
// Errors name the Meta object, its field and file: a Set service that is not in the
// Catalog, a state other than present or absent, a present operator without a channel, a
// Set without a Catalog, duplicate names, a missing namespace without a default, an ODLM
// input that the conversion would collide with, and the `Kind:` (capital K) typo of the
// Meta Operator's own design document, which the API server rejects: it is reported as an
// error naming the fix rather than accepted, so that what renders is also what applies.
package metaop

import (
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Group, version and kinds of the Meta Operator API.
const (
	Group      = "operator.ibm.com"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version

	KindCatalog = "MetaOperatorCatalog"
	KindConfig  = "MetaOperatorConfig"
	KindSet     = "MetaOperatorSet"
)

// ControlLabel marks the Subscriptions (and OperatorGroups) the Meta Operator manages.
const ControlLabel = "operator.ibm.com/css-control"

// State values of a MetaOperatorSet service.
const (
	StatePresent = "present"
	StateAbsent  = "absent"
)

// lastApplied is kubectl's annotation, never copied onto converted objects.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// CatalogSpec is MetaOperatorCatalog.spec.
type CatalogSpec struct {
	Operators []CatalogOperator `json:"operators,omitempty"`
}

// CatalogOperator is one entry of MetaOperatorCatalog.spec.operators.
type CatalogOperator struct {
	Name                string   `json:"name"`
	Namespace           string   `json:"namespace,omitempty"`
	Channel             string   `json:"channel,omitempty"`
	PackageName         string   `json:"packageName"`
	SourceName          string   `json:"sourceName,omitempty"`
	SourceNamespace     string   `json:"sourceNamespace,omitempty"`
	TargetNamespaces    []string `json:"targetNamespaces,omitempty"`
	InstallPlanApproval string   `json:"installPlanApproval,omitempty"`
	// State exists in the Meta Operator's type but is overwritten from the Set.
	State string `json:"state,omitempty"`
}

// ConfigSpec is MetaOperatorConfig.spec.
type ConfigSpec struct {
	Services []ConfigService `json:"services,omitempty"`
}

// ConfigService is one entry of MetaOperatorConfig.spec.services.
type ConfigService struct {
	Name string         `json:"name"`
	Spec map[string]any `json:"spec,omitempty"`
}

// SetSpec is MetaOperatorSet.spec.
type SetSpec struct {
	Services []SetService `json:"services,omitempty"`
}

// SetService is one entry of MetaOperatorSet.spec.services.
type SetService struct {
	Name        string `json:"name"`
	Channel     string `json:"channel,omitempty"`
	State       string `json:"state,omitempty"`
	Description string `json:"description,omitempty"`
}

// IsInput reports a Meta Operator custom resource (any version of the group, so that a
// wrong version is reported rather than passed through).
func IsInput(o *manifest.Object) bool {
	if o.Group() != Group {
		return false
	}
	switch o.Kind() {
	case KindCatalog, KindConfig, KindSet:
		return true
	}
	return false
}

// KindTypo returns the Meta kind an object names under a `Kind` key (capital K) when it
// has no `kind`, as two examples of the Meta Operator's design document do; "" otherwise.
func KindTypo(o *manifest.Object) string {
	if o.Kind() != "" {
		return ""
	}
	k, _ := o.Map["Kind"].(string)
	switch k {
	case KindCatalog, KindConfig, KindSet:
		return k
	}
	return ""
}
