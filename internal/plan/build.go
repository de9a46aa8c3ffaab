package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/kubeversion"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Cluster is what a plan reads the cluster from: a snapshot, a live cluster, or both
// (internal/cluster's Chain).
type Cluster interface {
	Get(apiVersion, kind, namespace, name string) (map[string]any, bool, error)
	List(apiVersion, kind, namespace string) ([]map[string]any, error)
}

// Request is what a plan is built from.
type Request struct {
	// Installs are the render's (render.Output.Installs).
	Installs []render.Install
	// Catalogs are the catalogs the render used (the new ones).
	Catalogs catalog.Set
	// CatalogSources are the CatalogSources the render knows, with their priorities
	// (render.Output.CatalogSources): OLM's resolver orders them by priority.
	CatalogSources []render.KnownCatalogSource
	// Cluster is the cluster as it is now.
	Cluster Cluster
	// Rendered are the objects the render generates (render.Output.Objects whose Generated
	// is true), compared with the cluster's in Plan.Objects.
	Rendered []map[string]any
	// OpenShiftVersion, when set (4.20), flags hops whose olm.maxOpenShiftVersion is below it.
	OpenShiftVersion string
	// OLMv1 tells that the render installs through OLM v1 (--olm v1): the installed version is
	// then read from ClusterExtensions, which OLM v1 keeps instead of Subscriptions and CSVs.
	OLMv1 bool
	// KubeVersion, when set (1.31.2), flags hops whose bundle OLM will not install on a cluster
	// of that Kubernetes version (minKubeVersion).
	KubeVersion string
	// SecretFields are the fields of the rendered objects that hold a value read from a
	// Secret (render.Output.SecretFields), by manifest.Ref.Key: their values never print.
	SecretFields map[manifest.Key]secret.Fields
}

// The OLM kinds a plan reads.
const (
	olmV1alpha1   = "operators.coreos.com/v1alpha1"
	kindSub       = "Subscription"
	kindCSV       = "ClusterServiceVersion"
	odlmLabel     = "operator.ibm.com/opreq-control"
	schemaPackage = "olm.package"
	schemaChannel = "olm.channel"
)

// Build reads the cluster for each install and returns the plan. An error is a cluster read
// that failed, naming the object.
func Build(req Request) (Plan, error) {
	if req.Cluster == nil {
		req.Cluster = noCluster{}
	}
	p := Plan{Operators: []Operator{}, Objects: newObjects(), Notes: []string{}}
	note, err := req.olmNote()
	if err != nil {
		return Plan{}, err
	}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	for _, in := range req.Installs {
		op, err := req.operator(in)
		if err != nil {
			return Plan{}, err
		}
		p.Operators = append(p.Operators, op)
	}
	removed, err := req.removals()
	if err != nil {
		return Plan{}, err
	}
	p.Operators = append(p.Operators, removed...)
	if err := req.olmCheck(&p); err != nil {
		return Plan{}, err
	}
	objects, notes, err := req.renderedObjects()
	if err != nil {
		return Plan{}, err
	}
	p.Objects, p.Notes = objects, append(p.Notes, notes...)
	return p, nil
}

// noCluster is an empty cluster, for a Request without one.
type noCluster struct{}

func (noCluster) Get(string, string, string, string) (map[string]any, bool, error) {
	return nil, false, nil
}

func (noCluster) List(string, string, string) ([]map[string]any, error) { return nil, nil }

// newOperator is an Operator with every list empty, not nil (the JSON shape is stable).
func newOperator(ns, name, pkg, channel string) Operator {
	return Operator{Namespace: ns, Name: name, Package: pkg, Channel: channel, Path: []Hop{}, Deprecations: []string{},
		CRDChanges: []CRDChange{}, StoredObjects: []StoredProblem{}, RBAC: RBAC{Added: []Rule{}, Removed: []Rule{}},
		Objects: []Object{}, Notes: []string{}}
}

// operator plans one install.
func (req Request) operator(in render.Install) (Operator, error) {
	op := newOperator(in.Namespace, in.Name, in.Package, in.Channel)
	op.catalogSource = in.CatalogSource
	if err := req.installed(&op, in); err != nil {
		return op, err
	}
	if in.Bundle != nil {
		op.To = in.Bundle.Name
	}
	pkg, _ := req.packageOf(in.CatalogSource, in.Package)
	op.Action = action(op.From, op.To)
	if op.Action == ActionUpgrade && isBehind(pkg, op.From, op.To) {
		op.Action = ActionBehind
	}
	if pkg == nil {
		op.Notes = append(op.Notes, fmt.Sprintf("package %s is not in the catalog: nothing else can be checked", in.Package))
		return op, nil
	}
	if op.Channel == "" {
		op.Channel = pkg.ChannelOrDefault("")
	}
	op.Deprecations = deprecations(pkg, op.Channel)
	if op.To == "" {
		op.Notes = append(op.Notes, "the catalog does not know the bundle the Subscription leads to")
		return op, nil
	}
	if op.From != "" && op.olmV1 {
		req.extensionPath(&op, pkg)
	} else if op.From != "" {
		req.path(&op, pkg)
		if csv := req.startingCSV(in); csv != "" {
			op.Notes = append(op.Notes, fmt.Sprintf("spec.startingCSV %s is read by OLM only when it installs the operator: the installed one follows the channel", csv))
		}
	}
	if err := req.dropped(&op, in.Bundle); err != nil {
		return op, err
	}
	if err := req.contents(&op, in.Bundle); err != nil {
		return op, err
	}
	return op, nil
}

// action names what happens between two CSVs.
func action(from, to string) string {
	switch from {
	case "":
		return ActionInstall
	case to:
		return ActionUnchanged
	}
	return ActionUpgrade
}

// isBehind tells whether bundle to has a lower version than bundle from, both in pkg.
func isBehind(pkg *catalog.Package, from, to string) bool {
	if pkg == nil || pkg.Bundles[from] == nil || pkg.Bundles[to] == nil {
		return false
	}
	vf, errFrom := semver.ParseTolerant(pkg.Bundles[from].Version)
	vt, errTo := semver.ParseTolerant(pkg.Bundles[to].Version)
	return errFrom == nil && errTo == nil && vt.LT(vf)
}

// deprecations are the package's and the channel's deprecation messages.
func deprecations(pkg *catalog.Package, channel string) []string {
	out := []string{}
	if d, ok := pkg.DeprecationFor(schemaPackage, pkg.Name); ok {
		out = append(out, "package "+pkg.Name+": "+d.Message)
	}
	if d, ok := pkg.DeprecationFor(schemaChannel, channel); ok {
		out = append(out, "channel "+channel+": "+d.Message)
	}
	return out
}

// path fills op.Path (and PathError) with the hops OLM takes, and each hop's deprecation.
func (req Request) path(op *Operator, pkg *catalog.Package) {
	path, err := upgradepath.FindFrom(pkg, op.Channel, upgradepath.Installed{CSV: op.From, Version: op.fromVersion}, op.To)
	hops := path.Hops
	if len(path.Loop) > 0 {
		op.loops = true
		var steps []string
		for _, h := range path.Loop {
			steps = append(steps, fmt.Sprintf("%s -> %s (%s)", h.From, h.To, h.Via))
		}
		op.Notes = append(op.Notes, fmt.Sprintf("at the channel head %s OLM does not stay: it goes on with %s, one InstallPlan after the other for ever (an older entry's skipRange holds the head's version; OLM does not compare versions)",
			path.Target, strings.Join(steps, ", then ")))
	}
	var noPath *upgradepath.NoPathError
	switch {
	case errors.As(err, &noPath):
		hops = noPath.Hops
		op.PathError = noPath.Error()
	case err != nil:
		op.PathError = err.Error()
	}
	for _, h := range hops {
		op.Path = append(op.Path, req.hop(op, h))
	}
}

// hop converts one upgradepath hop, flagging the OpenShift version and the deprecation.
func (req Request) hop(op *Operator, h upgradepath.Hop) Hop {
	out := Hop{From: h.From, To: h.To, Via: string(h.Via), Version: h.Version, MaxOpenShiftVersion: h.MaxOpenShiftVersion, MinKubeVersion: h.MinKubeVersion}
	if h.Deprecation != nil {
		op.Deprecations = append(op.Deprecations, "bundle "+h.To+": "+h.Deprecation.Message)
	}
	req.checkKube(op, &out)
	if req.OpenShiftVersion == "" {
		return out
	}
	ok, err := h.AllowsOpenShift(req.OpenShiftVersion)
	if err != nil {
		op.Notes = append(op.Notes, err.Error())
		return out
	}
	out.OpenShiftBlocked = !ok
	return out
}

// checkKube flags a hop whose bundle OLM will not install on the --kube-version given, with
// the reason as a note for the first such hop (where the update stops).
func (req Request) checkKube(op *Operator, h *Hop) {
	if req.KubeVersion == "" || h.MinKubeVersion == "" {
		return
	}
	cluster, err := kubeversion.ParseCluster(req.KubeVersion)
	if err != nil {
		op.Notes = append(op.Notes, fmt.Sprintf("--kube-version %q is not a Kubernetes version: minKubeVersion not checked (%v)", req.KubeVersion, err))
		return
	}
	problem := kubeversion.Problem(h.To, h.MinKubeVersion, req.KubeVersion, cluster)
	if problem == "" {
		return
	}
	h.KubeBlocked = true
	if !slices.ContainsFunc(op.Path, func(earlier Hop) bool { return earlier.KubeBlocked }) {
		op.Notes = append(op.Notes, fmt.Sprintf("%s: OLM will not install it (RequirementsNotMet), so the update stops at %s", problem, h.From))
	}
}

// installed fills op's From and FromChannel from the cluster: OLM v0's Subscription and CSV,
// else, with OLMv1, OLM v1's ClusterExtension of the same name (an operator OLM v0 installed
// stays a Subscription under --olm v1).
func (req Request) installed(op *Operator, in render.Install) error {
	from, channel, err := req.installedCSV(in)
	if err != nil {
		return err
	}
	if from != "" {
		op.From, op.FromChannel = from, channel
		op.fromVersion, err = req.csvVersion(in.Namespace, from)
		return err
	}
	if !req.OLMv1 {
		return nil
	}
	bundle, version, channel, found, err := req.installedExtension(in)
	if err != nil || !found {
		return err
	}
	op.From, op.fromVersion, op.FromChannel, op.olmV1 = bundle, version, channel, true
	return nil
}

// installedCSV is the CSV installed for in: the Subscription's status.installedCSV, else a
// CSV in its namespace that belongs to the package; "" when none, or when the cluster does
// not serve OLM's kinds (Build notes it). channel is the Subscription's, "" without one.
func (req Request) installedCSV(in render.Install) (csv, channel string, err error) {
	sub, found, err := req.Cluster.Get(olmV1alpha1, kindSub, in.Namespace, in.Name)
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return "", "", fmt.Errorf("reading Subscription %s/%s: %w", in.Namespace, in.Name, err)
	}
	if found {
		channel = str(sub, "spec", "channel")
		if csv := str(sub, "status", "installedCSV"); csv != "" {
			return csv, channel, nil
		}
	}
	csvs, err := req.Cluster.List(olmV1alpha1, kindCSV, in.Namespace)
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return "", "", fmt.Errorf("listing ClusterServiceVersions in %s: %w", in.Namespace, err)
	}
	pkg, _ := req.packageOf(in.CatalogSource, in.Package)
	for _, obj := range csvs {
		if name := str(obj, "metadata", "name"); belongs(name, in.Package, pkg) {
			return name, channel, nil
		}
	}
	return "", "", nil
}

// csvVersion is the spec.version of the cluster's CSV name in namespace, "" when the
// cluster has no such CSV (or does not serve the kind).
func (req Request) csvVersion(namespace, name string) (string, error) {
	csv, found, err := req.Cluster.Get(olmV1alpha1, kindCSV, namespace, name)
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return "", fmt.Errorf("reading ClusterServiceVersion %s/%s: %w", namespace, name, err)
	}
	if !found {
		return "", nil
	}
	return str(csv, "spec", "version"), nil
}

// startingCSV is the spec.startingCSV of the render's Subscription for in, "" when none.
func (req Request) startingCSV(in render.Install) string {
	for _, obj := range req.Rendered {
		if str(obj, "kind") == kindSub && str(obj, "apiVersion") == olmV1alpha1 &&
			str(obj, "metadata", "namespace") == in.Namespace && str(obj, "metadata", "name") == in.Name {
			return str(obj, "spec", "startingCSV")
		}
	}
	return ""
}

// belongs tells whether a CSV name is one of the package's: a bundle of the catalog's
// package, or named <package>.<version>.
func belongs(csv, pkgName string, pkg *catalog.Package) bool {
	if pkg != nil {
		if _, ok := pkg.Bundles[csv]; ok {
			return true
		}
	}
	return strings.HasPrefix(csv, pkgName+".")
}

// removals are ODLM's Subscriptions, and with OLMv1 its ClusterExtensions, in the cluster
// whose package no install has (none of a kind the cluster does not serve).
func (req Request) removals() ([]Operator, error) {
	subs, err := req.Cluster.List(olmV1alpha1, kindSub, "")
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return nil, fmt.Errorf("listing Subscriptions: %w", err)
	}
	kept := map[string]bool{}
	for _, in := range req.Installs {
		kept[in.Package] = true
	}
	out := []Operator{}
	for _, sub := range subs {
		pkg := str(sub, "spec", "name")
		labels, _ := manifest.Get(sub, "metadata", "labels").(map[string]any)
		if labels[odlmLabel] != "true" || kept[pkg] {
			continue
		}
		op := newOperator(str(sub, "metadata", "namespace"), str(sub, "metadata", "name"), pkg, str(sub, "spec", "channel"))
		op.Action = ActionRemove
		op.From = str(sub, "status", "installedCSV")
		op.FromChannel = op.Channel
		out = append(out, op)
	}
	if req.OLMv1 {
		extensions, err := req.extensionRemovals(kept)
		if err != nil {
			return nil, err
		}
		out = append(out, extensions...)
	}
	slices.SortFunc(out, func(a, b Operator) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out, nil
}

// str is the string at keys, "" when missing or not a string.
func str(obj map[string]any, keys ...string) string {
	s, _ := manifest.Get(obj, keys...).(string)
	return s
}

// packageOf is package pkg in the catalog of CatalogSource source ("namespace/name";
// catalog.Set.Package).
func (req Request) packageOf(source, pkg string) (*catalog.Package, bool) {
	ns, name, _ := strings.Cut(source, "/")
	return req.Catalogs.Package(ns, name, pkg)
}
