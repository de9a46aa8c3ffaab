package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/olm"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// OLM's OperatorGroup: its API version and kind.
const (
	olmV1API = "operators.coreos.com/v1"
	kindOG   = "OperatorGroup"
)

// olmCheck asks OLM v0's own resolver (internal/olmresolve) what it does in each namespace
// of the plan's OLM v0 operators once the render is applied: the cluster's CSVs,
// Subscriptions and OperatorGroups, the render's Subscriptions and OperatorGroups over them,
// and each CatalogSource the Subscriptions name serving the plan's catalog. Where OLM's
// updates of an operator are not the plan's path (a dependency no catalog offers keeps OLM
// from updating at all), the operator says so and counts as blocked; the operators OLM adds as
// dependencies are operators of the plan of their own (DependencyOf), and a namespace OLM
// cannot resolve is a note.
func (req Request) olmCheck(p *Plan) error {
	if req.OLMv1 || req.Catalogs.Empty() {
		return nil
	}
	byNamespace := map[string][]int{}
	var namespaces []string
	for i, op := range p.Operators {
		if op.Action == ActionRemove || op.olmV1 || op.To == "" {
			continue
		}
		if _, seen := byNamespace[op.Namespace]; !seen {
			namespaces = append(namespaces, op.Namespace)
		}
		byNamespace[op.Namespace] = append(byNamespace[op.Namespace], i)
	}
	if len(namespaces) == 0 {
		return nil
	}
	slices.Sort(namespaces)
	for _, ns := range namespaces {
		cluster, sources, leftOut, err := req.olmNamespace(ns)
		var unreadable *unreadableError
		if errors.As(err, &unreadable) {
			op := &p.Operators[byNamespace[ns][0]]
			op.Notes = append(op.Notes, fmt.Sprintf("OLM's own resolver is not run for namespace %s: %v", ns, err))
			continue
		}
		if err != nil {
			return err
		}
		if len(leftOut) > 0 {
			op := &p.Operators[byNamespace[ns][0]]
			op.Notes = append(op.Notes, fmt.Sprintf("OLM's own resolver resolves namespace %s without Subscription(s) %s, whose packages the catalogs given do not have", ns, strings.Join(leftOut, ", ")))
		}
		if len(sources) == 0 {
			continue
		}
		walk, err := req.olmWalk(ns, cluster, sources)
		if refused := (*refusedSource)(nil); errors.As(err, &refused) {
			req.refused(p, byNamespace[ns], refused.key)
			continue
		}
		if err != nil {
			req.unresolved(p, byNamespace[ns], err)
			continue
		}
		req.compare(p, byNamespace[ns], walk)
	}
	return nil
}

// olmWalk serves the plan's catalogs as the CatalogSources they are the content of (the plain
// one as each of sources that no catalog is named after, and as the other CatalogSources the
// render knows), with their priorities, and walks namespace ns. A catalog opm serve refuses
// for one of sources is an error naming it.
func (req Request) olmWalk(ns string, cluster olmresolve.Cluster, sources []string) (olmresolve.Walk, error) {
	priorities := map[string]int{}
	keys := slices.Clone(sources)
	for _, k := range req.CatalogSources {
		priorities[k.Key()] = k.Priority
		keys = append(keys, k.Key())
	}
	slices.Sort(keys)
	served, err := olmresolve.SourcesOf(req.Catalogs, slices.Compact(keys), priorities)
	if err != nil {
		return olmresolve.Walk{}, err
	}
	r, err := olmresolve.New(context.Background(), served, olmresolve.OpenShiftGlobalNamespace)
	if err != nil {
		return olmresolve.Walk{}, err
	}
	defer r.Close()
	for _, key := range sources {
		sns, name, _ := strings.Cut(key, "/")
		if err := r.Refused(sns, name); err != nil {
			return olmresolve.Walk{}, &refusedSource{key: key, err: err}
		}
	}
	return r.Walk(context.Background(), cluster, ns)
}

// refusedSource is a CatalogSource whose catalog opm serve refuses.
type refusedSource struct {
	key string
	err error
}

func (e *refusedSource) Error() string { return fmt.Sprintf("catalog source %s: %v", e.key, e.err) }
func (e *refusedSource) Unwrap() error { return e.err }

// refused marks the operators at idx whose namespace's Subscriptions use CatalogSource key,
// whose catalog opm serve refuses: it serves nothing, so nothing installs or updates there.
// The reasons are the catalog's OPMRefusals (opm's own text spans lines and varies with the
// order it reads packages in).
func (req Request) refused(p *Plan, idx []int, key string) {
	var reasons []string
	if cat := req.Catalogs.OfKey(key); cat != nil {
		for _, e := range cat.OPMRefusals() {
			reasons = append(reasons, e.Error())
		}
	}
	if len(reasons) == 0 {
		reasons = []string{"opm's cache build fails on it"}
	}
	msg := fmt.Sprintf("CatalogSource %s serves nothing, so OLM installs and updates nothing in namespace %s: opm serve refuses its catalog: %s",
		key, p.Operators[idx[0]].Namespace, strings.Join(reasons, "; "))
	for _, i := range idx {
		op := &p.Operators[i]
		op.Path = []Hop{} // OLM takes none
		if op.PathError == "" {
			op.PathError = msg
		} else {
			op.Notes = append(op.Notes, msg)
		}
	}
}

// unresolved marks the operators at idx of a namespace OLM's resolver cannot resolve: nothing
// installs or updates there (the Subscriptions report ResolutionFailed). OLM's own text for a
// conflict varies from run to run, so the plan names its first clause's kind and the
// requirements no catalog offers, which are the same every time.
func (req Request) unresolved(p *Plan, idx []int, err error) {
	kind, _, _ := strings.Cut(err.Error(), ":")
	var why []string
	for _, i := range idx {
		op := p.Operators[i]
		for _, b := range []string{op.From, op.To} {
			if m := req.missingDependencies(op, b); m != "" && !slices.Contains(why, m) {
				why = append(why, m)
			}
		}
	}
	msg := fmt.Sprintf("OLM's own resolver cannot resolve namespace %s (%s): nothing installs or updates there", p.Operators[idx[0]].Namespace, kind)
	if len(why) > 0 {
		msg += "; " + strings.Join(why, "; ")
	}
	for _, i := range idx {
		op := &p.Operators[i]
		if op.PathError == "" {
			op.PathError = msg
		} else {
			op.Notes = append(op.Notes, msg)
		}
	}
}

// compare sets, for the operators at idx of one namespace, what OLM's walk does that the
// plan's path does not, and notes the dependencies OLM adds.
func (req Request) compare(p *Plan, idx []int, walk olmresolve.Walk) {
	byPackage := map[string][]string{}
	installed := map[string]string{}
	var order []string
	for _, plan := range walk.Plans {
		for _, in := range plan.Installs {
			pkg := in.Package()
			if _, seen := byPackage[pkg]; !seen {
				order = append(order, pkg)
			}
			byPackage[pkg] = append(byPackage[pkg], in.CSV)
			installed[pkg] = in.CSV
		}
	}
	planned := map[string]bool{}
	for _, i := range idx {
		op := &p.Operators[i]
		planned[op.Package] = true
		olmCSVs := byPackage[op.Package]
		reaches := op.From == op.To || slices.Contains(olmCSVs, op.To) || (op.From == "" && installed[op.Package] == op.To)
		if reaches {
			continue
		}
		why := req.missingDependencies(*op, op.To)
		msg := fmt.Sprintf("OLM's own resolver does not bring %s to %s", op.Package, op.To)
		if len(olmCSVs) > 0 {
			msg += fmt.Sprintf(": it installs %s", strings.Join(olmCSVs, ", then "))
		} else if op.From != "" {
			msg += fmt.Sprintf(": it keeps %s", op.From)
		}
		if why != "" {
			msg += " (" + why + ")"
		}
		op.Notes = append(op.Notes, msg)
		if op.PathError == "" {
			op.PathError = msg
		}
	}
	var of []string
	var deps []int
	for _, i := range idx {
		of = append(of, p.Operators[i].Namespace+"/"+p.Operators[i].Name)
	}
	for _, pkg := range order {
		if planned[pkg] {
			continue
		}
		dep, err := req.dependency(p.Operators[idx[0]].Namespace, pkg, byPackage[pkg], walk)
		if err != nil {
			op := &p.Operators[idx[0]]
			op.Notes = append(op.Notes, fmt.Sprintf("OLM also installs %s (package %s), a dependency, in namespace %s, which is not planned: %v", strings.Join(byPackage[pkg], ", then "), pkg, op.Namespace, err))
			continue
		}
		dep.DependencyOf = strings.Join(of, ", ")
		p.Operators = append(p.Operators, dep)
		deps = append(deps, len(p.Operators)-1)
	}
	for _, d := range deps {
		p.Operators[d].DependencyReason = req.requiredBy(p, append(slices.Clone(idx), deps...), p.Operators[d])
	}
	if walk.Repeats != "" && !slices.ContainsFunc(idx, func(i int) bool { return p.Operators[i].loops }) {
		op := &p.Operators[idx[0]]
		op.Notes = append(op.Notes, fmt.Sprintf("OLM's resolver does not settle in namespace %s: %s brings it back to a state it was in", op.Namespace, walk.Repeats))
	}
}

// missingDependencies names the requirements of bundle in pkg that no package of the plan's
// catalog offers, "" when none is missing.
func (req Request) missingDependencies(op Operator, bundle string) string {
	pkg, ok := req.packageOf(op.catalogSource, op.Package)
	if !ok {
		return ""
	}
	b, ok := pkg.Bundles[bundle]
	if !ok || b == nil {
		return ""
	}
	return olmresolve.Unoffered(b, req.Catalogs.OfKey(op.catalogSource))
}

// olmNamespace is what OLM's resolver reads for namespace ns once the render is applied: the
// cluster's OLM objects there and the render's Subscriptions and OperatorGroups over them;
// the CatalogSources the Subscriptions name ("namespace/name", sorted); and the cluster's
// Subscriptions left out, whose packages the plan's catalog does not have.
func (req Request) olmNamespace(ns string) (olmresolve.Cluster, []string, []string, error) {
	var c olmresolve.Cluster
	var leftOut []string
	subs, err := req.clusterObjects(olmV1alpha1, kindSub, ns)
	if err != nil {
		return c, nil, nil, err
	}
	csvs, err := req.clusterObjects(olmV1alpha1, kindCSV, ns)
	if err != nil {
		return c, nil, nil, err
	}
	ogs, err := req.clusterObjects(olmV1API, kindOG, ns)
	if err != nil {
		return c, nil, nil, err
	}
	for _, obj := range req.Rendered {
		if str(obj, "metadata", "namespace") != ns {
			continue
		}
		switch {
		case str(obj, "kind") == kindSub && str(obj, "apiVersion") == olmV1alpha1:
			subs = overlay(subs, obj)
		case str(obj, "kind") == kindOG && str(obj, "apiVersion") == olmV1API && len(ogs) == 0:
			ogs = append(ogs, obj)
		}
	}
	for _, obj := range csvs {
		var csv v1alpha1.ClusterServiceVersion
		if err := olm.Decode(resolverFields(obj), &csv); err != nil {
			return c, nil, nil, &unreadableError{fmt.Errorf("reading ClusterServiceVersion %s/%s: %w", ns, str(obj, "metadata", "name"), err)}
		}
		c.CSVs = append(c.CSVs, &csv)
	}
	sourceKeys := map[string]bool{}
	for _, obj := range subs {
		var sub v1alpha1.Subscription
		if err := olm.Decode(obj, &sub); err != nil {
			return c, nil, nil, &unreadableError{fmt.Errorf("reading Subscription %s/%s: %w", ns, str(obj, "metadata", "name"), err)}
		}
		if sub.Spec == nil {
			continue
		}
		if _, ok := req.Catalogs.Package(sub.Spec.CatalogSourceNamespace, sub.Spec.CatalogSource, sub.Spec.Package); !ok {
			// the catalogs given hold what the render installs, not every package of the
			// cluster's CatalogSources: OLM would find this one there, and resolution must not
			// fail for want of it
			leftOut = append(leftOut, sub.Name)
			continue
		}
		c.Subscriptions = append(c.Subscriptions, &sub)
		if sub.Spec.CatalogSource != "" && sub.Spec.CatalogSourceNamespace != "" {
			sourceKeys[sub.Spec.CatalogSourceNamespace+"/"+sub.Spec.CatalogSource] = true
		}
	}
	for _, obj := range ogs {
		var og operatorsv1.OperatorGroup
		if err := olm.Decode(obj, &og); err != nil {
			return c, nil, nil, &unreadableError{fmt.Errorf("reading OperatorGroup %s/%s: %w", ns, str(obj, "metadata", "name"), err)}
		}
		c.OperatorGroups = append(c.OperatorGroups, &og)
	}
	if len(c.OperatorGroups) == 0 {
		// A cluster export often leaves OperatorGroups out, and the render writes none where a
		// Subscription exists. OLM's resolver reads an OperatorGroup only for its annotation
		// excluding global catalogs and its upgrade strategy: a plain one stands in.
		og := &operatorsv1.OperatorGroup{}
		og.Name, og.Namespace = "olmresolve-stand-in", ns
		c.OperatorGroups = append(c.OperatorGroups, og)
	}
	return c, slices.Sorted(maps.Keys(sourceKeys)), leftOut, nil
}

// clusterObjects lists a kind of OLM's in ns (none when the cluster does not serve it: Build
// notes that).
func (req Request) clusterObjects(apiVersion, kind, ns string) ([]map[string]any, error) {
	objs, err := req.Cluster.List(apiVersion, kind, ns)
	if errors.Is(err, cluster.ErrNotServed) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %ss in %s: %w", kind, ns, err)
	}
	return objs, nil
}

// overlay puts the rendered Subscription obj in place of the cluster's of the same name,
// keeping the cluster's status (what OLM has installed).
func overlay(subs []map[string]any, obj map[string]any) []map[string]any {
	name := str(obj, "metadata", "name")
	for i, s := range subs {
		if str(s, "metadata", "name") == name {
			merged := maps.Clone(obj)
			if status, ok := s["status"]; ok {
				merged["status"] = status
			}
			subs[i] = merged
			return subs
		}
	}
	return append(subs, obj)
}

// unreadableError is a cluster object OLM's types cannot hold: the resolver is not run for its
// namespace, and the plan says so.
type unreadableError struct{ error }

func (e *unreadableError) Unwrap() error { return e.error }

// resolverFields keeps the fields of a CSV OLM's resolver reads (its name, namespace,
// annotations, version, replaces, owned and required APIs, phase), so that a field it does
// not read cannot keep it from running.
func resolverFields(csv map[string]any) map[string]any {
	out := map[string]any{"apiVersion": csv["apiVersion"], "kind": csv["kind"]}
	if meta, ok := csv["metadata"].(map[string]any); ok {
		out["metadata"] = map[string]any{"name": meta["name"], "namespace": meta["namespace"], "annotations": meta["annotations"]}
	}
	if spec, ok := csv["spec"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range []string{"version", "replaces", "customresourcedefinitions", "apiservicedefinitions"} {
			if v, ok := spec[k]; ok {
				kept[k] = v
			}
		}
		out["spec"] = kept
	}
	if status, ok := csv["status"].(map[string]any); ok {
		out["status"] = map[string]any{"phase": status["phase"]}
	}
	return out
}

// dependency plans an operator OLM installs or updates in namespace ns for the operators the
// render installs there (package pkg; csvs are the CSVs OLM's walk installs, in order): its
// Subscription as the walk leaves it (the one OLM creates, named as OLM names it, or the
// cluster's), planned like an install of the render, so that its hops, CRD changes and
// permissions are checked too.
func (req Request) dependency(ns, pkg string, csvs []string, walk olmresolve.Walk) (Operator, error) {
	var sub *v1alpha1.Subscription
	for _, s := range walk.Final.Subscriptions {
		if s.Namespace == ns && s.Spec != nil && s.Spec.Package == pkg {
			sub = s
			break
		}
	}
	if sub == nil {
		return Operator{}, fmt.Errorf("no Subscription of package %s after OLM's walk", pkg)
	}
	in := render.Install{Namespace: ns, Name: sub.Name, Package: pkg, Channel: sub.Spec.Channel,
		CatalogSource: sub.Spec.CatalogSourceNamespace + "/" + sub.Spec.CatalogSource}
	final := csvs[len(csvs)-1]
	if p, ok := req.packageOf(in.CatalogSource, pkg); ok {
		if in.Bundle = p.Bundles[final]; in.Bundle == nil {
			in.Bundle = p.BundleByCSV(final)
		}
	}
	op, err := req.operator(in)
	if err != nil {
		return Operator{}, err
	}
	if op.From == "" && len(csvs) > 1 {
		op.Notes = append(op.Notes, fmt.Sprintf("OLM installs %s, one InstallPlan after the other", strings.Join(csvs, ", then ")))
	}
	return op, nil
}

// requiredBy says which requirements of the bundles the operators at idx lead to (the
// render's and the other dependencies) the dependency's bundle satisfies, or that none does
// (OLM then updates it in the same resolution of the namespace only).
func (req Request) requiredBy(p *Plan, idx []int, dep Operator) string {
	depPkg, ok := req.packageOf(dep.catalogSource, dep.Package)
	if !ok || depPkg.Bundles[dep.To] == nil {
		return "OLM resolves it with the namespace's other operators"
	}
	target := depPkg.Bundles[dep.To]
	var why []string
	for _, i := range idx {
		op := p.Operators[i]
		pkg, ok := req.packageOf(op.catalogSource, op.Package)
		if !ok || pkg.Bundles[op.To] == nil || op.Package == dep.Package {
			continue
		}
		reqs, err := pkg.Bundles[op.To].Requirements()
		if err != nil {
			continue // the render reports it
		}
		for _, r := range reqs {
			if r.Match(target) {
				why = append(why, fmt.Sprintf("%s requires %s (%s)", op.To, r.What, r.Property))
			}
		}
	}
	if len(why) == 0 {
		return "no bundle the render installs requires it: OLM updates it in the same resolution of namespace " + dep.Namespace
	}
	return strings.Join(why, "; ")
}
