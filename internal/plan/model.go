// Package plan owns what `odlm-render plan` reports: for each operator a render installs,
// what applying the render does to a cluster (from which CSV to which, the hops OLM takes,
// CRD changes and the custom resources they break, permissions added and removed), and for
// the render as a whole its objects added, changed (field by field, Secret values hidden)
// and removed, read from a cluster export, and the three ways of writing it (text, JSON,
// Markdown). It knows nothing of the command line.
package plan

// Actions an operator's plan can have.
const (
	ActionInstall   = "install"
	ActionUpgrade   = "upgrade"
	ActionUnchanged = "unchanged"
	ActionRemove    = "remove"
	// ActionBehind: the target is an older version than the installed CSV.
	ActionBehind = "behind"
)

// Plan is the whole report: one entry per operator, in the render's order, removals last,
// the render's objects against the cluster's, and notes on the cluster as a whole. Its JSON form is the stable shape of
// `plan -o json`; every list is present, [] when empty.
type Plan struct {
	Operators []Operator `json:"operators"`
	Objects   Objects    `json:"objects"`
	// Notes say what could not be read of the cluster as a whole, and why: OLM's kinds it
	// does not serve, kinds not searched for removed objects.
	Notes []string `json:"notes"`
}

// Operator is what happens to one operator: its Subscription, the CSV installed now (From)
// and the one the render leads to (To).
type Operator struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Package   string `json:"package"`
	Channel   string `json:"channel"`
	// FromChannel is the channel of the cluster's Subscription, "" when it has none; it differs
	// from Channel when ODLM moves the Subscription to a higher channel (docs/semantics.md,
	// Existing Subscriptions and several requests), and OLM then follows Channel.
	FromChannel string `json:"fromChannel"`
	// Action is install, upgrade, unchanged, behind or remove.
	Action string `json:"action"`
	From   string `json:"from"`
	To     string `json:"to"`
	// Path is the hops OLM takes from From to To (or as far as it goes when PathError is set).
	Path []Hop `json:"path"`
	// PathError says why OLM does not reach To, "" when it does.
	PathError    string      `json:"pathError"`
	Deprecations []string    `json:"deprecations"`
	CRDChanges   []CRDChange `json:"crdChanges"`
	// StoredObjects are the custom resources in the cluster the new CRDs refuse or prune.
	StoredObjects []StoredProblem `json:"storedObjects"`
	RBAC          RBAC            `json:"rbac"`
	// Objects are the target bundle's other manifests (Services, roles…) and whether OLM
	// creates them or updates one the cluster has; [] when the contents are unknown.
	Objects []Object `json:"objects"`
	// Notes say what could not be checked, and why.
	Notes []string `json:"notes"`
	// DependencyOf names the operators of the namespace ("namespace/name", joined with ", ")
	// for which OLM v0 installs or updates this one, as a dependency of their bundles; "" for
	// an operator the render installs.
	DependencyOf string `json:"dependencyOf"`
	// DependencyReason says which requirement of which bundle it satisfies ("app-operator.v2.0.0
	// requires package db-operator >=1.1.0 (olm.package.required)"), "" for an operator the
	// render installs.
	DependencyReason string `json:"dependencyReason"`

	olmV1 bool // From is what an OLM v1 ClusterExtension installed (there is no CSV)
	// fromVersion is the cluster CSV's spec.version, "" when the cluster has no CSV From:
	// OLM reads the installed version from it (a CSV the catalog pruned keeps its version).
	fromVersion string
	// loops is set when OLM does not stay at the channel head (a note says so).
	loops bool
	// catalogSource is the "namespace/name" of the CatalogSource the Subscription names,
	// whose catalog is read for the operator (catalog.Set.OfKey)
	catalogSource string
}

// Object is one manifest of the target bundle besides its CSV and CRDs. Action is create
// (the cluster has no object of that kind and name in the install namespace, nor
// cluster-scoped) or update; what changes inside it is not compared.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Action     string `json:"action"`
}

// Hop is one update OLM makes.
type Hop struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Via     string `json:"via"`
	Version string `json:"version"`
	// MaxOpenShiftVersion is the bundle's olm.maxOpenShiftVersion, "" when none.
	MaxOpenShiftVersion string `json:"maxOpenShiftVersion"`
	// OpenShiftBlocked is true when MaxOpenShiftVersion is below the --openshift-version given.
	OpenShiftBlocked bool `json:"openShiftBlocked"`
	// MinKubeVersion is the bundle's CSV spec.minKubeVersion, "" when none.
	MinKubeVersion string `json:"minKubeVersion"`
	// KubeBlocked is true when OLM will not install the bundle on the --kube-version given: its
	// MinKubeVersion is above it, or OLM cannot read it (the update stops before this hop).
	KubeBlocked bool `json:"kubeBlocked"`
}

// CRDChange is one finding of internal/crdupgrade between the cluster's CRD and the bundle's.
type CRDChange struct {
	// Bundle is the bundle whose CRD this is: the hop's target OLM applies it with (the
	// checks run for each hop whose bundle's contents are known, against the CRD the cluster
	// has by then).
	Bundle  string `json:"bundle"`
	CRD     string `json:"crd"`
	Version string `json:"version"`
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Safe    bool   `json:"safe"`
	Message string `json:"message"`
}

// StoredProblem is a custom resource of the cluster that the new CRD refuses or prunes.
type StoredProblem struct {
	CRD    string `json:"crd"`
	Object string `json:"object"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// RBAC is the permissions the target bundle grants that the installed CSV does not (Added),
// and the reverse (Removed).
type RBAC struct {
	Added   []Rule `json:"added"`
	Removed []Rule `json:"removed"`
}

// Rule is one policy rule of one service account, namespaced or cluster-wide. Escalations
// (on added rules only) say why it widens what the operator may do.
type Rule struct {
	Scope           string   `json:"scope"`
	ServiceAccount  string   `json:"serviceAccount"`
	APIGroups       []string `json:"apiGroups"`
	Resources       []string `json:"resources"`
	ResourceNames   []string `json:"resourceNames"`
	NonResourceURLs []string `json:"nonResourceURLs"`
	Verbs           []string `json:"verbs"`
	Escalations     []string `json:"escalations"`
}

// Unsafe counts what --fail-on unsafe fails on: unsafe CRD changes, stored objects the new
// CRDs break, and escalating rules.
func (p Plan) Unsafe() int {
	n := 0
	for _, op := range p.Operators {
		n += op.unsafe()
	}
	return n
}

// Blocked counts the operators whose update OLM will not complete: no path to the target (the
// target behind the installed CSV among them), or a hop blocked by the cluster's OpenShift or
// Kubernetes version.
func (p Plan) Blocked() int {
	n := 0
	for _, op := range p.Operators {
		if op.blocked() {
			n++
		}
	}
	return n
}

// blocked tells whether OLM will not bring this operator to its target.
func (op Operator) blocked() bool {
	if op.PathError != "" || op.Action == ActionBehind {
		return true
	}
	for _, h := range op.Path {
		if h.OpenShiftBlocked || h.KubeBlocked {
			return true
		}
	}
	return false
}

// unsafe counts one operator's unsafe findings.
func (op Operator) unsafe() int {
	n := len(op.StoredObjects)
	for _, c := range op.CRDChanges {
		if !c.Safe {
			n++
		}
	}
	for _, r := range op.RBAC.Added {
		if len(r.Escalations) > 0 {
			n++
		}
	}
	return n
}
