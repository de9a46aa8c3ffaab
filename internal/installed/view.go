package installed

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// The Installed kind of the proposal, and its labels naming the tracked objects.
const (
	APIVersion        = "packages.operators.coreos.com/v2alpha1"
	Kind              = "Installed"
	LabelSubscription = "operators.coreos.com/sub"
	LabelCSV          = "operators.coreos.com/csv"
)

// Options selects the watched namespaces to show.
type Options struct {
	// Namespace is the one watched namespace to show (ignored with AllNamespaces).
	Namespace string
	// AllNamespaces shows every namespace the cluster state knows: Namespace objects, the
	// namespaces of the OLM objects and the target namespaces of OperatorGroups.
	AllNamespaces bool
}

// Item is one Installed object: an operator seen from a namespace it watches.
type Item struct {
	// Namespace is the watched namespace.
	Namespace string
	// CSV is the embedded ClusterServiceVersion (unsanitized): the Subscription's
	// installedCSV, else its currentCSV, or a CSV no Subscription tracks.
	CSV *manifest.Object
	// Subscription installed the CSV; nil for a CSV no Subscription tracks.
	Subscription *manifest.Object
	// CurrentVersion is the CSV's spec.version; TargetVersion the version of the
	// Subscription's currentCSV ("" when unknown).
	CurrentVersion, TargetVersion string
}

// Name is the Installed object's name: its CSV's name.
func (it Item) Name() string { return it.CSV.Name() }

// InstallationNamespace is where the operator is installed (its CSV's namespace).
func (it Item) InstallationNamespace() string { return it.CSV.Namespace() }

// Channel is the Subscription's spec.channel ("" without one).
func (it Item) Channel() string { return str(it.Subscription, "spec", "channel") }

// Phase is the CSV's status.phase.
func (it Item) Phase() string { return str(it.CSV, "status", "phase") }

// operator is one installed operator and the namespaces it watches.
type operator struct {
	csv, sub      *manifest.Object
	target        string
	all           bool
	namespaces    []string
	watchResolved bool
}

// Compute builds the Installed items of the watched namespaces opts selects, sorted by
// namespace, name and installation namespace, with warnings about what cannot be resolved.
// Call Validate first: Compute assumes well-typed fields.
func Compute(c Cluster, opts Options) ([]Item, diag.Results) {
	ops, rs := operators(c)
	var namespaces []string
	if opts.AllNamespaces {
		namespaces = knownNamespaces(c, ops)
	} else {
		namespaces = []string{opts.Namespace}
	}
	var items []Item
	for _, ns := range namespaces {
		for _, op := range ops {
			if !op.watchResolved || !op.all && !contains(op.namespaces, ns) {
				continue
			}
			items = append(items, Item{
				Namespace:      ns,
				CSV:            op.csv,
				Subscription:   op.sub,
				CurrentVersion: str(op.csv, "spec", "version"),
				TargetVersion:  op.target,
			})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Name() != b.Name() {
			return a.Name() < b.Name()
		}
		return a.InstallationNamespace() < b.InstallationNamespace()
	})
	for i := 1; i < len(items); i++ {
		if a, b := items[i-1], items[i]; a.Namespace == b.Namespace && a.Name() == b.Name() {
			rs = append(rs, diag.Warnf(b.CSV, "", "namespace %s is watched by two operators named %s (installed in %s and %s): the Installed objects share a name", b.Namespace, b.Name(), a.InstallationNamespace(), b.InstallationNamespace()))
		}
	}
	return items, rs.Sort()
}

// csvIndex holds the CSVs OLM installed (not its copies) by namespace and name.
type csvIndex map[string]map[string]*manifest.Object

func indexCSVs(c Cluster) csvIndex {
	idx := csvIndex{}
	for _, csv := range c.CSVs {
		if isCopied(csv) {
			continue
		}
		ns := csv.Namespace()
		if idx[ns] == nil {
			idx[ns] = map[string]*manifest.Object{}
		}
		idx[ns][csv.Name()] = csv
	}
	return idx
}

func (idx csvIndex) get(namespace, name string) *manifest.Object {
	if name == "" {
		return nil
	}
	return idx[namespace][name]
}

// operators finds the installed operators: one per Subscription whose installedCSV (else
// currentCSV) exists, plus one per CSV no Subscription tracks and no other CSV replaces.
func operators(c Cluster) ([]operator, diag.Results) {
	var rs diag.Results
	csvs := indexCSVs(c)
	claimedBy := map[*manifest.Object]*manifest.Object{}
	var ops []operator
	for _, sub := range c.Subscriptions {
		ns := sub.Namespace()
		installed := csvs.get(ns, str(sub, "status", "installedCSV"))
		current := csvs.get(ns, str(sub, "status", "currentCSV"))
		csv := installed
		if csv == nil {
			csv = current
		}
		if csv == nil {
			continue // nothing installed yet
		}
		if other := claimedBy[csv]; other != nil {
			rs = append(rs, diag.Warnf(sub, "status", "ClusterServiceVersion %s/%s is also tracked by Subscription %s: shown once, with that Subscription", ns, csv.Name(), other.Name()))
			continue
		}
		for _, o := range []*manifest.Object{installed, current} {
			if o != nil {
				claimedBy[o] = sub
			}
		}
		ops = append(ops, operator{csv: csv, sub: sub, target: targetVersion(csvs, sub, csv)})
	}
	replaced := map[string]bool{} // namespace/name of CSVs another CSV replaces
	for ns, byName := range csvs {
		for _, csv := range byName {
			if r := str(csv, "spec", "replaces"); r != "" {
				replaced[ns+"/"+r] = true
			}
		}
	}
	for _, csv := range c.CSVs {
		if isCopied(csv) || claimedBy[csv] != nil || csvs.get(csv.Namespace(), csv.Name()) != csv || replaced[csv.Namespace()+"/"+csv.Name()] {
			continue
		}
		v := str(csv, "spec", "version")
		ops = append(ops, operator{csv: csv, target: v})
	}
	groups := map[string][]*manifest.Object{}
	for _, og := range c.OperatorGroups {
		groups[og.Namespace()] = append(groups[og.Namespace()], og)
	}
	for i := range ops {
		rs = append(rs, ops[i].resolveWatch(groups[ops[i].csv.Namespace()])...)
	}
	sort.SliceStable(ops, func(i, j int) bool {
		a, b := ops[i].csv, ops[j].csv
		if a.Name() != b.Name() {
			return a.Name() < b.Name()
		}
		return a.Namespace() < b.Namespace()
	})
	return ops, rs
}

// targetVersion is the version of the Subscription's currentCSV: the CSV's own when it is
// the one shown, that CSV's spec.version when it exists, else the version in its name.
func targetVersion(csvs csvIndex, sub, shown *manifest.Object) string {
	current := str(sub, "status", "currentCSV")
	if current == "" || current == shown.Name() {
		return str(shown, "spec", "version")
	}
	if csv := csvs.get(sub.Namespace(), current); csv != nil {
		if v := str(csv, "spec", "version"); v != "" {
			return v
		}
	}
	return VersionFromName(current)
}

// VersionFromName finds the semantic version in a CSV name written the usual ways
// ("etcdoperator.v0.9.4", "prometheusoperator.0.47.0"): what follows the first dot (and an
// optional "v") that parses as a semantic version, or "".
func VersionFromName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] != '.' {
			continue
		}
		rest := strings.TrimPrefix(name[i+1:], "v")
		if _, err := semver.Parse(rest); err == nil {
			return rest
		}
	}
	return ""
}

// resolveWatch sets the namespaces an operator watches, from its OperatorGroup (the one its
// CSV's olm.operatorGroup annotation names, else the only one in its namespace):
// status.namespaces as OLM resolved them, else spec.targetNamespaces, else (a selector that
// OLM has not resolved yet) the CSV's olm.targetNamespaces annotation; an OperatorGroup with
// neither targetNamespaces nor selector watches all namespaces. Without a usable
// OperatorGroup the CSV's olm.targetNamespaces annotation is used. "" means all namespaces.
func (op *operator) resolveWatch(groups []*manifest.Object) diag.Results {
	csv := op.csv
	var og *manifest.Object
	if name := str(csv, "metadata", "annotations", annotationGroup); name != "" {
		for _, g := range groups {
			if g.Name() == name {
				og = g
			}
		}
	}
	if og == nil && len(groups) == 1 {
		og = groups[0]
	}
	annotation, annotated := manifest.Get(csv.Map, "metadata", "annotations", annotationTargets).(string)
	fromAnnotation := func() {
		op.set(strings.Split(annotation, ","))
	}
	if og == nil {
		why := fmt.Sprintf("there is no OperatorGroup in namespace %s", csv.Namespace())
		if len(groups) > 1 {
			names := make([]string, len(groups))
			for i, g := range groups {
				names[i] = g.Name()
			}
			why = fmt.Sprintf("namespace %s has %d OperatorGroups (%s) and the CSV's %s annotation names none of them", csv.Namespace(), len(groups), strings.Join(names, ", "), annotationGroup)
		}
		if annotated {
			fromAnnotation()
			return nil
		}
		return diag.Results{diag.Warnf(csv, "", "%s, and the CSV has no %s annotation: cannot tell which namespaces it watches; left out", why, annotationTargets)}
	}
	if nss, ok := stringList(og, "status", "namespaces"); ok && len(nss) > 0 {
		op.set(nss)
		return nil
	}
	if nss, ok := stringList(og, "spec", "targetNamespaces"); ok && len(nss) > 0 {
		op.set(nss)
		return nil
	}
	if sel, ok := manifest.Get(og.Map, "spec", "selector").(map[string]any); ok && sel != nil {
		if annotated {
			fromAnnotation()
			return nil
		}
		return diag.Results{diag.Warnf(og, "spec.selector", "OLM has not resolved the selector into status.namespaces and CSV %s has no %s annotation: cannot tell which namespaces %s watches; left out", csv.Name(), annotationTargets, csv.Name())}
	}
	op.set([]string{allNamespacesTarget})
	return nil
}

func (op *operator) set(namespaces []string) {
	op.watchResolved = true
	op.namespaces = nil
	for _, ns := range namespaces {
		ns = strings.TrimSpace(ns)
		if ns == allNamespacesTarget {
			op.all = true
			continue
		}
		if !contains(op.namespaces, ns) {
			op.namespaces = append(op.namespaces, ns)
		}
	}
	sort.Strings(op.namespaces)
}

// knownNamespaces lists every namespace the cluster state names.
func knownNamespaces(c Cluster, ops []operator) []string {
	set := map[string]bool{}
	for _, ns := range c.Namespaces {
		set[ns] = true
	}
	for _, l := range [][]*manifest.Object{c.Subscriptions, c.CSVs, c.OperatorGroups} {
		for _, o := range l {
			set[o.Namespace()] = true
		}
	}
	for _, op := range ops {
		for _, ns := range op.namespaces {
			set[ns] = true
		}
	}
	delete(set, "")
	return manifest.SortedKeys(set)
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// Object is the Installed object of the proposal: named after the CSV, in the watched
// namespace, labelled with the names of the Subscription and CSV it tracks, with a status
// embedding the whole Subscription and a sanitized CSV (see SanitizeCSV). managedFields are
// left out of both. A name that is not a valid label value is not written as a label (and
// a warning says so).
func (it Item) Object() (*manifest.Object, diag.Results) {
	var rs diag.Results
	labels := map[string]any{}
	label := func(key, value string, from *manifest.Object) {
		if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
			rs = append(rs, diag.Warnf(from, "metadata.name", "not written as label %s of Installed %s/%s: %s", key, it.Namespace, it.Name(), strings.Join(errs, "; ")))
			return
		}
		labels[key] = value
	}
	status := map[string]any{"clusterServiceVersion": SanitizeCSV(it.CSV.Map)}
	label(LabelCSV, it.Name(), it.CSV)
	if it.Subscription != nil {
		label(LabelSubscription, it.Subscription.Name(), it.Subscription)
		sub := deepCopy(it.Subscription.Map).(map[string]any)
		dropManagedFields(sub)
		status["subscription"] = sub
	}
	md := map[string]any{"name": it.Name(), "namespace": it.Namespace}
	if len(labels) > 0 {
		md["labels"] = labels
	}
	return manifest.New(map[string]any{
		"apiVersion": APIVersion,
		"kind":       Kind,
		"metadata":   md,
		"status":     status,
	}), rs
}

// SanitizeCSV returns a copy of a CSV without what the proposal keeps out of an Installed
// object: the olm.targetNamespaces annotation (it names other namespaces) and the icon
// (spec.icon, large base64 data); metadata.managedFields are dropped too.
func SanitizeCSV(csv map[string]any) map[string]any {
	out := deepCopy(csv).(map[string]any)
	dropManagedFields(out)
	if md, ok := out["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, annotationTargets)
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
	}
	if spec, ok := out["spec"].(map[string]any); ok {
		delete(spec, "icon")
	}
	return out
}

func dropManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}
