package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/channel"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/olm"
)

const (
	olmGroup                = "operators.coreos.com"
	subscriptionAPIVersion  = olmGroup + "/v1alpha1"
	operatorGroupAPIVersion = olmGroup + "/v1"
	clusterInstallNamespace = naming.ClusterInstallNamespace
)

// olmInstall is the OLM v0 installer (subscription.go, catalogsource.go, catalogchecks.go,
// approval.go): it plans and writes a Subscription per operator and the OperatorGroups,
// checks them against the catalog, and emits the CatalogSources they use.
type olmInstall struct {
	r *run
	// knownCatalogSources are the CatalogSources from the inputs and snapshots, listed once,
	// and ownCatalog the one ODLM was installed from (looked up once)
	knownCatalogSources []*catalogSource
	ownCatalog          *ownCatalogLookup
	// dependencySubs are the Subscriptions written for dependencies (--dependencies
	// subscriptions), by namespace/name
	dependencySubs map[string]*manifest.Object
}

// plan plans a Subscription per operator the requests use (ODLM's search and channel rules).
func (oi *olmInstall) plan() []*subscriptionPlan { return oi.planSubscriptions() }

// build writes the planned Subscriptions and their OperatorGroups, and checks them against
// the catalogs.
func (oi *olmInstall) build(plans []*subscriptionPlan) {
	oi.buildSubscriptions(plans)
	oi.buildOperatorGroups()
	oi.catalogChecks()
	oi.checkSharedManualApproval()
}

// afterOperands emits the CatalogSources the Subscriptions use, and the Subscriptions of
// dependencies (--dependencies subscriptions).
func (oi *olmInstall) afterOperands() {
	oi.emitCatalogSources()
	oi.emitDependencySubscriptions()
}

// subscriptionPlan is one Subscription: created by the render, or an input one that ODLM
// would find (and update, when it carries ODLM's label).
type subscriptionPlan struct {
	namespace, name string
	// existing is the input Subscription ODLM's search finds; nil when the render creates it
	existing *manifest.Object
	// contributions are the wants that reconcile this Subscription, in render order
	contributions []*want
	// obj is the Subscription written to the output; nil for an input without ODLM's label
	obj *manifest.Object
}

// contribute records that a want reconciles this Subscription.
func (p *subscriptionPlan) contribute(w *want) {
	p.contributions = append(p.contributions, w)
	w.plan = p
}

func (p *subscriptionPlan) channel() string {
	if p.obj != nil {
		return p.obj.String("spec", "channel")
	}
	if p.existing != nil {
		return p.existing.String("spec", "channel")
	}
	return ""
}

// packageName is the package the Subscription installs (an existing one says; else the
// entry's).
func (p *subscriptionPlan) packageName(e *entry) string {
	if p.existing != nil && p.existing.String("spec", "name") != "" {
		return p.existing.String("spec", "name")
	}
	return e.PackageName
}

func (p *subscriptionPlan) labelled() bool {
	_, ok := p.existing.Labels()[naming.ControlLabel]
	return ok
}

// findExisting is ODLM's Subscription search (docs/semantics.md, Subscriptions: when one is created): in the install namespace and
// the registry namespace, a Subscription named like the operator or subscribing to its
// package (among the inputs, the snapshot and the live cluster: docs/semantics.md, Decided deviations: one look-up order). More than one is an
// error.
func (r *run) findExisting(w *want) (*manifest.Object, bool) {
	e := w.entry
	return r.findOne(w, subscriptionAPIVersion, "Subscription", "Subscriptions", func(s *manifest.Object) bool {
		return s.Name() == e.Name || s.String("spec", "name") == e.PackageName
	})
}

// findOne is ODLM's search for the object that tracks an operator (a Subscription, or a
// no-OLM tracking ConfigMap): among the existing objects of that kind in the install
// namespace or the registry namespace, those that match; more than one is an error that
// fails the request.
func (r *run) findOne(w *want, apiVersion, kind, what string, match func(*manifest.Object) bool) (*manifest.Object, bool) {
	e := w.entry
	var found []*manifest.Object
	namespaces := []string{e.installNamespace()}
	if w.registry.key.Namespace != e.installNamespace() {
		namespaces = append(namespaces, w.registry.key.Namespace)
	}
	for _, ns := range namespaces {
		for _, o := range r.existing(apiVersion, kind, ns) {
			if o.Namespace() == ns && match(o) {
				found = append(found, o)
			}
		}
	}
	if len(found) > 1 {
		var names []string
		for _, o := range found {
			names = append(names, o.Namespace()+"/"+o.Name())
		}
		r.add(diag.Errorf(w.request.obj, w.field("name"), "several %s use package %q (%s): ODLM refuses to choose", what, e.PackageName, strings.Join(names, ", ")))
		w.request.failed = true
		return nil, false
	}
	if len(found) == 1 {
		return found[0], true
	}
	return nil, true
}

// planSubscriptions decides, for every in-scope want, which Subscription reconciles it.
// No-op entries never create a Subscription, but annotate one that exists: they are planned
// last.
func (oi *olmInstall) planSubscriptions() []*subscriptionPlan {
	plans := &subscriptionPlans{byKey: map[key]*subscriptionPlan{}}
	var noops []*want
	for _, w := range oi.r.inputs.allWants() {
		if w.inScope && w.entry != nil && oi.planWant(plans, w) {
			noops = append(noops, w)
		}
	}
	for _, w := range noops {
		existing, _ := oi.r.findExisting(w)
		k := key{w.entry.installNamespace(), w.entry.PackageName}
		if existing != nil {
			k = key{existing.Namespace(), existing.Name()}
		}
		if _, planned := plans.byKey[k]; !planned && existing == nil {
			continue
		}
		plans.planFor(k, existing).contribute(w)
	}
	return plans.list
}

// subscriptionPlans are the Subscriptions a round plans, by namespace and name, and in the
// order they are planned.
type subscriptionPlans struct {
	byKey map[key]*subscriptionPlan
	list  []*subscriptionPlan
}

func (ps *subscriptionPlans) planFor(k key, existing *manifest.Object) *subscriptionPlan {
	p, ok := ps.byKey[k]
	if !ok {
		p = &subscriptionPlan{namespace: k.Namespace, name: k.Name, existing: existing}
		ps.byKey[k] = p
		ps.list = append(ps.list, p)
	}
	return p
}

// planWant plans the Subscription of one want: the existing one that reconciles it, or the
// one ODLM creates. It reports a no-op entry, planned once the others are.
func (oi *olmInstall) planWant(plans *subscriptionPlans, w *want) (noop bool) {
	e := w.entry
	existing, ok := oi.r.findExisting(w)
	switch {
	case !ok:
		return false
	case e.UserManaged:
		if existing != nil {
			oi.userManagedExisting(w, existing)
		}
		return false
	case e.InstallMode == api.InstallModeNoOp:
		w.channel = e.Channel
		return true
	case existing != nil:
		p := plans.planFor(key{existing.Namespace(), existing.Name()}, existing)
		if p.labelled() {
			oi.resolveChannel(w, false)
		} else {
			w.channel = e.Channel
		}
		p.contribute(w)
		return false
	case !oi.resolveChannel(w, true):
		w.request.failed = true
		return false
	}
	plans.planFor(key{e.installNamespace(), e.PackageName}, nil).contribute(w)
	return false
}

func (oi *olmInstall) userManagedExisting(w *want, existing *manifest.Object) {
	labels := existing.Labels()
	if _, odlm := labels[naming.ControlLabel]; !odlm || labels[naming.DoNotUninstallLabel] == "true" {
		return
	}
	if _, done := oi.r.pass.replaced[existing]; done {
		return
	}
	oi.r.pass.replaced[existing] = nil
	oi.r.add(diag.Warnf(existing, "metadata.labels", "operator %q is userManaged in OperandRegistry %s: ODLM deletes this Subscription it once created, so it is left out of the output", w.entry.Name, w.registry.key))
}

// resolveChannel sets w.channel from the registry and, when a catalog is given, checks it
// against the catalog (docs/semantics.md, Resolving a registry entry: catalog and channel resolution). forCreate makes a missing catalog source an error.
func (oi *olmInstall) resolveChannel(w *want, forCreate bool) bool {
	e := w.entry
	o := e.registry.obj
	if (e.SourceName == "" || e.SourceNamespace == "") && forCreate {
		// ODLM picks among the catalogs it can see (docs/semantics.md, Resolving a registry entry: catalog and channel resolution); a lone sourceName is ignored
		if ok, why := oi.chooseCatalogSource(e); !ok {
			oi.r.add(diag.Errorf(o, e.field("sourceName"), "operator %q has no sourceName/sourceNamespace and %s: ODLM cannot find a CatalogSource for its Subscription (requested by %s). Set sourceName and sourceNamespace, or give the cluster's CatalogSources to choose from: among the inputs, in a --snapshot (kubectl get catalogsources -A -o yaml) or with --live", e.Name, why, w.request.key))
			return false
		}
	}
	if e.SourceName == "" || e.SourceNamespace == "" {
		w.channel = e.Channel
		return true
	}
	if oi.r.catalogs.Empty() {
		w.channel = e.Channel
		return true
	}
	pkg, ok := oi.r.packageOfEntry(e)
	if !ok {
		oi.r.add(diag.Errorf(o, e.field("packageName"), "package %q is not in the catalog%s", e.PackageName, oi.notOffered(e)))
		return false
	}
	names := pkg.ChannelNames()
	if e.Channel == "" {
		// no channel: OLM follows the package's default channel (docs/semantics.md, Decided deviations: empty channel)
		if pkg.DefaultChannel == "" {
			oi.r.add(diag.Errorf(o, e.field("channel"), "is empty, and package %q has no defaultChannel for OLM to follow", e.PackageName))
			return false
		}
		w.channel = ""
		return true
	}
	if slices.Contains(names, e.Channel) {
		w.channel = e.Channel
		return true
	}
	if fb, ok := channel.PickFallback(names, e.FallbackChannels); ok {
		oi.r.add(diag.Warnf(o, e.field("channel"), "channel %q is not in package %q; using fallback channel %q", e.Channel, e.PackageName, fb))
		w.channel = fb
		return true
	}
	oi.r.add(diag.Errorf(o, e.field("channel"), "channel %q is not in package %q (channels: %s) and no fallbackChannels entry matches", e.Channel, e.PackageName, strings.Join(names, ", ")))
	return false
}

// buildSubscriptions writes every planned Subscription.
func (oi *olmInstall) buildSubscriptions(plans []*subscriptionPlan) {
	for _, p := range plans {
		switch {
		case p.existing == nil:
			oi.createSubscription(p)
		case p.labelled():
			oi.updateSubscription(p)
		default:
			where := ""
			if o, ok := oi.r.lookups.originOf[p.existing]; ok {
				where = " (found in the " + string(o) + ")"
			}
			oi.r.add(diag.Infof(p.existing, "metadata.labels", "Subscription%s was not created by ODLM (no %s label): ODLM leaves it unchanged and creates no other for package %q", where, naming.ControlLabel, p.existing.String("spec", "name")))
		}
	}
}

// contributors returns the wants that may change a Subscription's spec (no-op entries
// only annotate).
func contributors(p *subscriptionPlan) []*want {
	var out []*want
	for _, w := range p.contributions {
		if w.entry.InstallMode != api.InstallModeNoOp {
			out = append(out, w)
		}
	}
	return out
}

func (oi *olmInstall) createSubscription(p *subscriptionPlan) {
	ws := contributors(p)
	if len(ws) == 0 {
		return
	}
	chosen := oi.agreeOnChannel(p, ws)
	var base *want
	spec := map[string]any{}
	for _, w := range ws {
		if w.channel != chosen {
			continue
		}
		e := w.entry
		if base == nil {
			base = w
			spec["name"] = e.PackageName
			if chosen != "" { // ODLM leaves an empty channel out (docs/semantics.md, Decided deviations: empty channel)
				spec["channel"] = chosen
			}
			if e.StartingCSV != "" {
				spec["startingCSV"] = e.StartingCSV
			}
		} else {
			oi.warnSpecDisagreement(base, w)
		}
		oi.applyEntryToSpec(spec, w)
	}
	obj := manifest.New(map[string]any{
		"apiVersion": subscriptionAPIVersion,
		"kind":       "Subscription",
		"metadata": map[string]any{
			"name":        p.name,
			"namespace":   p.namespace,
			"labels":      map[string]any{naming.ControlLabel: "true"},
			"annotations": map[string]any{},
		},
		"spec": spec,
	})
	oi.r.annotate(obj, p)
	oi.pinNoOpAnnotations(obj, p, chosen)
	oi.throughOLMTypes(obj)
	p.obj = oi.r.madeAsController(obj)
}

// throughOLMTypes writes a Subscription's spec as ODLM's typed client sends it: through
// OLM's SubscriptionSpec (fields it does not have dropped, quantities canonical). A spec
// that does not decode (an existing Subscription's, read from the inputs or a cluster) is an
// error on the field.
func (oi *olmInstall) throughOLMTypes(obj *manifest.Object) {
	spec, _ := obj.Map["spec"].(map[string]any)
	typed, err := olm.SubscriptionSpec(spec)
	if err != nil {
		field, err := olm.Locate(err, "spec")
		oi.r.add(diag.Errorf(obj, field, "not a valid OLM Subscription: %v", err))
		return
	}
	obj.Map["spec"] = typed
}

// applyEntryToSpec is what ODLM writes into a Subscription's spec from an entry whose
// channel matches the Subscription's (docs/semantics.md, Subscriptions: existing Subscriptions and several requests).
func (oi *olmInstall) applyEntryToSpec(spec map[string]any, w *want) {
	e := w.entry
	spec["name"] = e.PackageName
	if e.SourceName != "" && e.SourceNamespace != "" {
		spec["source"] = e.SourceName
		spec["sourceNamespace"] = e.SourceNamespace
	}
	if e.InstallPlanApproval != "" {
		spec["installPlanApproval"] = e.InstallPlanApproval
	}
	if e.SubscriptionConfig != nil {
		cfg, err := manifest.ToValue(e.SubscriptionConfig)
		if err != nil {
			oi.r.add(diag.Errorf(e.registry.obj, e.field("subscriptionConfig"), "%v", err))
			return
		}
		spec["config"] = cfg
	}
}

func (oi *olmInstall) warnSpecDisagreement(base, w *want) {
	a, b := base.entry, w.entry
	if a == b {
		return
	}
	var diffs []string
	if a.SourceName != b.SourceName || a.SourceNamespace != b.SourceNamespace {
		diffs = append(diffs, "catalog source")
	}
	if a.InstallPlanApproval != b.InstallPlanApproval {
		diffs = append(diffs, "installPlanApproval")
	}
	ca, _ := manifest.ToValue(a.SubscriptionConfig)
	cb, _ := manifest.ToValue(b.SubscriptionConfig)
	if b.SubscriptionConfig != nil && !merge.Equal(ca, cb) {
		diffs = append(diffs, "subscriptionConfig")
	}
	if len(diffs) > 0 {
		oi.r.add(diag.Warnf(b.registry.obj, b.field("name"), "operator %q (OperandRegistry %s) and operator %q (OperandRegistry %s) share a Subscription but differ in %s: the later one (%s) wins", a.Name, a.registry.key, b.Name, b.registry.key, strings.Join(diffs, ", "), w.request.key))
	}
}

// agreeOnChannel applies docs/semantics.md, Decided deviations: disagreeing channels: when requests disagree, the minimum semver channel
// wins (first in render order on ties), with a warning that names every request.
func (oi *olmInstall) agreeOnChannel(p *subscriptionPlan, ws []*want) string {
	var channels []string
	for _, w := range ws {
		channels = append(channels, w.channel)
	}
	chosen := channel.Min(channels)
	if slices.ContainsFunc(channels, func(c string) bool { return c != chosen }) {
		var asks []string
		for _, w := range ws {
			asks = append(asks, fmt.Sprintf("OperandRequest %s (%s) asks %q", w.request.key, w.field(""), w.channel))
		}
		first := ws[0]
		oi.r.add(diag.Warnf(first.entry.registry.obj, first.entry.field("channel"), "requests disagree on the channel of Subscription %s/%s: %s; using %q, the lowest version (ODLM keeps whichever request it reconciled first)", p.namespace, p.name, strings.Join(asks, "; "), chosen))
	}
	return chosen
}

// annotate writes the steady-state annotations of every contribution (docs/semantics.md, Subscriptions: shape of a new Subscription; existing Subscriptions and several requests).
func (r *run) annotate(obj *manifest.Object, p *subscriptionPlan) {
	md := manifest.EnsureMap(obj.Map, "metadata")
	annotations, ok := md["annotations"].(map[string]any)
	if !ok {
		// a fleet's shared operator carries five annotations per request: sized once
		annotations = make(map[string]any, 3*len(p.contributions)+2)
		md["annotations"] = annotations
	}
	for _, w := range p.contributions {
		reg := w.registry.key
		req := w.request.key
		e := w.entry
		annotations[naming.RegistryAnnotation(reg.Namespace, reg.Name)] = "true"
		annotations[naming.ConfigAnnotation(reg.Namespace, reg.Name)] = "true"
		annotations[naming.RequestAnnotation(req.Namespace, req.Name, e.Name)] = w.channel
		annotations[naming.OperatorNamespaceAnnotation(req.Namespace, req.Name, e.Name)] = e.installNamespace()
		annotations[naming.RequestConfigAnnotation(req.Namespace, req.Name, e.Name)] = e.serviceName()
	}
}

// updateSubscription reconciles an existing Subscription that carries ODLM's label (docs/semantics.md, Subscriptions: existing Subscriptions and several requests).
func (oi *olmInstall) updateSubscription(p *subscriptionPlan) {
	obj := oi.r.updatedCopy(p.existing)
	oi.r.annotate(obj, p)
	spec := manifest.EnsureMap(obj.Map, "spec")
	current, _ := spec["channel"].(string)
	ws := contributors(p)
	// the steady state of every request reconciling in turn: no-op entries pin their
	// annotation to an older current channel, the others move the channel to the minimum
	// requested one; a moved channel re-pins the no-op annotations (bounded: the channel
	// only ever moves down to a channel already annotated)
	for range len(p.contributions) + 1 {
		oi.pinNoOpAnnotations(obj, p, current)
		if len(ws) == 0 {
			break // only no-op entries: ODLM never reaches the channel step (docs/semantics.md, Subscriptions: existing Subscriptions and several requests)
		}
		lowest := channel.ODLMFindMinSemver(current, requestedChannels(obj))
		if lowest == "" || lowest == current {
			break
		}
		spec["channel"] = lowest
		current = lowest
	}
	oi.pinNoOpAnnotations(obj, p, current)
	for _, w := range ws {
		if w.channel == current {
			oi.applyEntryToSpec(spec, w)
		}
	}
	oi.throughOLMTypes(obj)
	p.obj = oi.r.madeByController(p, obj)
	oi.r.updated(p.existing, obj)
}

// pinNoOpAnnotations is docs/semantics.md, Subscriptions: existing Subscriptions and several requests: a no-op entry never moves the channel forward, so its
// request annotation records the Subscription's current channel when that is older than
// the entry's (both valid semvers).
func (oi *olmInstall) pinNoOpAnnotations(obj *manifest.Object, p *subscriptionPlan, current string) {
	for _, w := range p.contributions {
		if w.entry.InstallMode != api.InstallModeNoOp {
			continue
		}
		value := w.channel
		if channel.Valid(current) && channel.Valid(w.entry.Channel) && channel.Compare(current, w.entry.Channel) < 0 {
			value = current
		}
		req := w.request.key
		obj.SetMetadataString("annotations", naming.RequestAnnotation(req.Namespace, req.Name, w.entry.Name), value)
	}
}

// requestedChannels is FindSemverFromAnnotations: the channels of the request
// annotations whose pruned form is a valid semver ("25.11" and "4.0" are not: ignored).
func requestedChannels(obj *manifest.Object) []string {
	annotations := obj.Annotations()
	var out []string
	for _, k := range manifest.SortedKeys(annotations) {
		if strings.HasSuffix(k, "/request") && strings.Count(k, ".") >= 2 && channel.Valid(annotations[k]) {
			out = append(out, annotations[k])
		}
	}
	return out
}

// buildOperatorGroups creates one OperatorGroup per namespace where the render creates a
// Subscription, unless the inputs already hold one there (docs/semantics.md, OperatorGroups; Decided deviations: shared OperatorGroups).
func (oi *olmInstall) buildOperatorGroups() {
	byNamespace, order := oi.operatorGroupsWanted()
	oi.keepOwnOperatorGroups(byNamespace)
	for _, ns := range order {
		if og := oi.operatorGroup(ns, byNamespace[ns]); og != nil {
			oi.r.operators.operatorGroups = append(oi.r.operators.operatorGroups, oi.r.madeAsController(og))
		}
	}
}

// operatorGroupsWanted lists the entries of created Subscriptions by the namespace whose
// OperatorGroup they need, and those namespaces in the order they first appear.
func (oi *olmInstall) operatorGroupsWanted() (map[string][]*entry, []string) {
	byNamespace := map[string][]*entry{}
	var order []string
	for _, p := range oi.r.operators.subscriptions {
		if p.existing != nil || p.obj == nil {
			continue
		}
		for _, w := range contributors(p) {
			e := w.entry
			if e.installNamespace() == clusterInstallNamespace || oi.operatorGroupThere(e.Namespace) {
				continue
			}
			if _, seen := byNamespace[e.Namespace]; !seen {
				order = append(order, e.Namespace)
			}
			if !slices.Contains(byNamespace[e.Namespace], e) {
				byNamespace[e.Namespace] = append(byNamespace[e.Namespace], e)
			}
		}
	}
	return byNamespace, order
}

// operatorGroupThere reports an OperatorGroup already in a namespace, which stops a second
// one (docs/semantics.md, Decided deviations: shared OperatorGroups; one look-up order),
// except ODLM's own in a snapshot or live cluster: that is what this render emits again.
func (oi *olmInstall) operatorGroupThere(ns string) bool {
	for _, o := range oi.r.existing(operatorGroupAPIVersion, "OperatorGroup", ns) {
		if o.Namespace() != ns {
			continue
		}
		if !oi.r.lookups.isInput(o) && oi.r.lookups.originOf[o] != OriginRendered && o.Name() == naming.OperatorGroupName && o.Labels()[naming.ControlLabel] == "true" {
			continue
		}
		return true
	}
	return false
}

// operatorGroup is the OperatorGroup of a namespace, targeting what the first of its entries
// (by registry and position) wants, with a warning for each entry that wants other targets.
func (oi *olmInstall) operatorGroup(ns string, entries []*entry) *manifest.Object {
	slices.SortStableFunc(entries, func(a, b *entry) int {
		if c := strings.Compare(a.registry.key.Namespace, b.registry.key.Namespace); c != 0 {
			return c
		}
		if c := strings.Compare(a.registry.key.Name, b.registry.key.Name); c != 0 {
			return c
		}
		return a.index - b.index
	})
	first := entries[0]
	for _, e := range entries[1:] {
		if !sameTargets(first, e) {
			oi.r.add(diag.Warnf(e.registry.obj, e.field("targetNamespaces"), "operators %q (OperandRegistry %s) and %q (OperandRegistry %s) share namespace %s but want different targetNamespaces; the OperatorGroup follows %q (ODLM: whichever is created first)", first.Name, first.registry.key, e.Name, e.registry.key, ns, first.Name))
		}
	}
	targets := first.TargetNamespaces
	if targets == nil {
		targets = []string{first.Namespace}
	}
	spec, err := olm.OperatorGroupSpec(targets)
	if err != nil {
		oi.r.add(diag.Errorf(first.registry.obj, first.field("targetNamespaces"), "%v", err))
		return nil
	}
	return manifest.New(map[string]any{
		"apiVersion": operatorGroupAPIVersion,
		"kind":       "OperatorGroup",
		"metadata": map[string]any{
			"name":      naming.OperatorGroupName,
			"namespace": ns,
			"labels":    map[string]any{naming.ControlLabel: "true"},
		},
		"spec": spec,
	})
}

func sameTargets(a, b *entry) bool {
	if (a.TargetNamespaces == nil) != (b.TargetNamespaces == nil) {
		return false
	}
	return slices.Equal(a.TargetNamespaces, b.TargetNamespaces)
}

// subscriptionFor returns the Subscription that serves a want's operands (rendered or
// input), as ODLM's search finds it.
func (r *run) subscriptionFor(w *want) *subscriptionPlan {
	if w.plan != nil {
		return w.plan
	}
	// out-of-scope wants: ODLM still finds a Subscription some other request made, or one
	// that already exists (5.1: scope is not re-checked for operands)
	e := w.entry
	for _, p := range r.operators.subscriptions {
		if p.obj == nil && p.existing == nil {
			continue
		}
		if p.namespace != e.installNamespace() && p.namespace != w.registry.key.Namespace {
			continue
		}
		obj := p.obj
		if obj == nil {
			obj = p.existing
		}
		pkg := obj.String("spec", "name")
		if pkg == "" { // a no-OLM tracking ConfigMap
			pkg = obj.Annotations()[trackerPackageAnnotation]
		}
		if p.name == e.Name || pkg == e.PackageName {
			return p
		}
	}
	if existing, ok := r.findExisting(w); ok && existing != nil {
		// found, not planned: an existing Subscription no in-scope request reconciles
		return &subscriptionPlan{namespace: existing.Namespace(), name: existing.Name(), existing: existing}
	}
	return nil
}

// keepOwnOperatorGroups emits again the OperatorGroup ODLM made (its name and label) in a
// snapshot or the live cluster, in each namespace where the render updates an ODLM
// Subscription found there: ODLM never touches that group again, so it is part of the steady
// state, and a render of a cluster it was applied to must not drop it. Namespaces where the
// render creates a Subscription get a freshly built group instead (byNamespace).
func (oi *olmInstall) keepOwnOperatorGroups(creating map[string][]*entry) {
	done := map[string]bool{}
	for _, p := range oi.r.operators.subscriptions {
		if p.existing == nil || p.obj == nil || oi.r.lookups.isInput(p.existing) || oi.r.lookups.originOf[p.existing] == OriginRendered || !p.labelled() {
			continue
		}
		ns := p.namespace
		if ns == clusterInstallNamespace || done[ns] || len(creating[ns]) > 0 {
			continue
		}
		done[ns] = true
		for _, og := range oi.r.existing(operatorGroupAPIVersion, "OperatorGroup", ns) {
			if og.Namespace() == ns && !oi.r.lookups.isInput(og) && oi.r.lookups.originOf[og] != OriginRendered && og.Name() == naming.OperatorGroupName && og.Labels()[naming.ControlLabel] == "true" {
				oi.r.operators.operatorGroups = append(oi.r.operators.operatorGroups, oi.r.madeAsController(oi.r.updatedCopy(og)))
			}
		}
	}
}
