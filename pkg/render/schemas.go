package render

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/platform"
	"github.com/odlm-render/odlm-render/internal/suggest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// What serves a kind (docs/semantics.md, Decided deviations: what a cluster serves; nothing invalid, nothing silent). The API server refuses a custom resource that no
// CRD serves, and prunes and validates the others against their CRD; built-in kinds have
// their versions and scope. The render knows CRDs from, in the one look-up order: the
// bundles the Subscriptions install (their contents), the inputs, the snapshot and the live
// cluster (one list of CRDs), and the platform: Kubernetes' built-in kinds, OLM's CRDs and
// OpenShift's. ODLM's own kinds are served (ODLM runs); the api package checks them.

const crdAPIVersion = "apiextensions.k8s.io/v1"

// originBundle names CRDs and CSVs that installed bundles bring, in explanations.
const originBundle cluster.Origin = "catalog bundle"

// servedKind is what the render knows serves a group and kind: a CRD, a built-in kind, or,
// with neither, ODLM's own kinds (namespaced, version v1alpha1).
type servedKind struct {
	def     *crd.Definition
	builtin *platform.Builtin
	// where names the source of def: "bundle kube-green.v0.7.1", "inputs", "snapshot"…
	where string
	// fromBundle is set when the CRD arrives with an operator the render installs and
	// nothing else (inputs, snapshot, live, platform) serves the kind already
	fromBundle bool
}

func (s *servedKind) namespaced() bool {
	switch {
	case s.def != nil:
		return s.def.Namespaced
	case s.builtin != nil:
		return s.builtin.Namespaced
	}
	return true
}

func (s *servedKind) versions() []string {
	switch {
	case s.def != nil:
		return s.def.Versions()
	case s.builtin != nil:
		return s.builtin.Versions
	}
	return []string{api.Version}
}

// subscribedBundle is the bundle a Subscription installs once converged.
type subscribedBundle struct {
	plan   *subscriptionPlan
	bundle *catalog.Bundle
	// userManaged names the registry entry that marks the operator userManaged: the user
	// installed it, so its CRDs are there before the render's output is applied
	userManaged string
}

// parsedCRD caches a CRD parsed once per render (parsing builds its validators).
type parsedCRD struct {
	def *crd.Definition
	err error
}

// unknownInstall is an operator whose CRDs the render cannot know: a bundle without
// contents, a package the catalog lacks, any operator when no catalog is given or OLM is
// not used. Kinds nothing known serves may be its, so they are not errors.
type unknownInstall struct {
	name   string
	bundle *catalog.Bundle // nil when not even the bundle is known
	// plan is the Subscription (or no-OLM tracker) that installs it, when the render knows
	// one: the operand CRs rendered for that plan are of kinds it serves
	plan *subscriptionPlan
	// why the CRDs are unknown, and how to make them known, for the info that says so
	why, remedy string
}

// info says once per operator that the objects of its kinds are not validated.
func (u unknownInstall) info() diag.Result {
	subject := u.name
	if u.bundle != nil {
		subject = "bundle " + u.name
	}
	return diag.Infof(nil, "", "%s: %s, so the objects of the kinds it serves are not validated (%s)", subject, u.why, u.remedy)
}

// crdsElsewhere is how to make an operator's CRDs known without its bundle.
const crdsElsewhere = "give its CRDs among the inputs or in a --snapshot folder, or read them with --live"

// noteInstalledBundles finds the bundle each Subscription installs (the render's, and the
// ones already in the inputs, the snapshot or the live cluster) and adds its CSV and CRDs to
// what reads see (bundleState); the operators the registries mark userManaged serve their
// kinds too (docs/semantics.md, Decided deviations: what a cluster serves). Then it indexes the served kinds.
func (sk *servedIndex) noteInstalledBundles() {
	sk.subscribed, sk.unknownInstalls = nil, nil
	sk.bundleState = map[manifest.Key]*manifest.Object{}
	if sk.r.opts.ODLMNoOLM {
		for _, t := range sk.r.operators.subscriptions {
			if len(t.contributions) > 0 {
				pkg := t.contributions[0].entry.PackageName
				sk.unknownInstalls = append(sk.unknownInstalls, unknownInstall{name: "package " + pkg + " (installed without OLM)", plan: t,
					why: "its CRDs are not known", remedy: crdsElsewhere})
			}
		}
		sk.noteUserManaged()
		sk.indexServedKinds()
		return
	}
	seen := map[manifest.Key]bool{}
	install := func(p *subscriptionPlan, sub *manifest.Object) {
		if sub == nil || seen[sub.Ref().Key()] {
			return
		}
		seen[sub.Ref().Key()] = true
		if b := sk.knownBundle(sub.String("spec", "sourceNamespace"), sub.String("spec", "source"), sub.String("spec", "name"), sub.String("spec", "channel"), "", p); b != nil {
			sk.subscribed = append(sk.subscribed, subscribedBundle{plan: p, bundle: b})
			sk.addBundleState(sub.Namespace(), b)
		}
	}
	for _, p := range sk.r.operators.subscriptions {
		if p.obj != nil {
			install(p, p.obj)
		} else {
			install(p, p.existing)
		}
	}
	for _, sub := range sk.allSubscriptions() {
		install(nil, sub)
	}
	for _, origin := range sk.r.operators.subscriptionListsFailed {
		sk.unknownInstalls = append(sk.unknownInstalls, unknownInstall{name: "the Subscriptions in the " + string(origin)})
	}
	sk.noteUserManaged()
	sk.indexServedKinds()
}

// knownBundle is the bundle a package's channel installs once converged (its head), or nil
// when the catalog does not say, which is then recorded as an unknown install. what
// qualifies the package in messages ("userManaged in OperandRegistry cs/common-service");
// sourceNS and source name its CatalogSource, whose catalog is read (catalog.Set.Package).
func (sk *servedIndex) knownBundle(sourceNS, source, pkgName, channel, what string, p *subscriptionPlan) *catalog.Bundle {
	unknown := func(qualifier, why string) *catalog.Bundle {
		name := "package " + pkgName
		if q := strings.Join(slices.DeleteFunc([]string{what, qualifier}, func(s string) bool { return s == "" }), ", "); q != "" {
			name += " (" + q + ")"
		}
		sk.unknownInstalls = append(sk.unknownInstalls, unknownInstall{name: name, plan: p, why: why,
			remedy: "give a catalog with its bundle contents (--catalog), or " + strings.TrimPrefix(crdsElsewhere, "give ")})
		return nil
	}
	if sk.r.catalogs.Empty() {
		return unknown("no catalog was given", "its CRDs are not known")
	}
	pkg, ok := sk.r.catalogs.Package(sourceNS, source, pkgName)
	if !ok {
		return unknown("not in the catalog", "its CRDs are not known")
	}
	b, err := pkg.HeadBundle(channel)
	if err != nil {
		// reported where the bundle is needed
		return unknown("", fmt.Sprintf("the head of channel %q is not known, nor are its CRDs", channel))
	}
	if b.Contents == nil {
		sk.unknownInstalls = append(sk.unknownInstalls, unknownInstall{name: b.Name, bundle: b, plan: p,
			why:    "the catalog carries only its CSV metadata, not its CRDs",
			remedy: "a catalog with olm.bundle.object properties, or catalog extract --bundle-contents pull, gives them"})
	}
	return b
}

// allSubscriptions lists the Subscriptions of every namespace: the inputs, the snapshot and
// the live cluster. Two reads ask (ODLM's own CatalogSource, the bundles already installed),
// and the first answer is kept for the round, so a failed list is remembered for the second.
func (sk *servedIndex) allSubscriptions() []*manifest.Object {
	return sk.r.existingOr(subscriptionAPIVersion, "Subscription", "", func(origin cluster.Origin, err error) diag.Result {
		if !slices.Contains(sk.r.operators.subscriptionListsFailed, origin) {
			sk.r.operators.subscriptionListsFailed = append(sk.r.operators.subscriptionListsFailed, origin)
		}
		return diag.Warnf(nil, "", "listing the Subscriptions in all namespaces (%s) failed, so the CRDs the operators already installed bring, and the CatalogSource ODLM was installed from, are not known: objects of kinds nothing else serves are not validated: %v", origin, err)
	})
}

// addBundleState makes a bundle's CSV (in the Subscription's namespace) and CRDs readable.
func (sk *servedIndex) addBundleState(namespace string, b *catalog.Bundle) {
	if b.Contents == nil {
		return
	}
	m, err := csvObject(namespace, b)
	if err != nil {
		sk.r.warnOnce(onceKey{topic: "bundle-csv", name: b.Name}, diag.Warnf(nil, "", "bundle %s: its ClusterServiceVersion cannot be made readable: %v", b.Name, err))
	} else {
		csv := manifest.New(m)
		sk.bundleState[csv.Ref().Key()] = csv
	}
	sk.addBundleCRDs(b)
}

// addBundleCRDs makes a bundle's CRDs readable.
func (sk *servedIndex) addBundleCRDs(b *catalog.Bundle) {
	if b.Contents == nil {
		return
	}
	for i := range b.Contents.CRDs {
		m, err := b.Contents.CRD(i)
		if err != nil {
			sk.r.warnOnce(onceKey{topic: "bundle-crd", name: b.Name}, diag.Warnf(nil, "", "bundle %s: CRD %d cannot be read, so it is not known: %v", b.Name, i, err))
			continue
		}
		o := manifest.New(m)
		if _, seen := sk.bundleState[o.Ref().Key()]; !seen {
			sk.bundleState[o.Ref().Key()] = o
		}
	}
}

// csvObject is the ClusterServiceVersion OLM holds once a bundle is installed, as far as the
// bundle says: name, OLM's annotations, display name, install modes, owned and required CRDs,
// install strategy (permissions, deployments by name), and the Succeeded phase.
func csvObject(namespace string, b *catalog.Bundle) (map[string]any, error) {
	ann := map[string]any{}
	for k, v := range b.Annotations {
		ann[k] = v
	}
	md := map[string]any{"name": b.CSVName, "namespace": namespace}
	if len(ann) > 0 {
		md["annotations"] = ann
	}
	spec := map[string]any{"displayName": b.DisplayName}
	if b.Version != "" {
		spec["version"] = b.Version
	}
	if len(b.InstallModes) > 0 {
		v, err := manifest.ToValue(b.InstallModes)
		if err != nil {
			return nil, err
		}
		spec["installModes"] = v
	}
	c := b.Contents
	refs := func(l []catalog.CRDRef) []any {
		out := []any{}
		for _, x := range l {
			out = append(out, map[string]any{"name": x.Name, "version": x.Version, "kind": x.Kind})
		}
		return out
	}
	spec["customresourcedefinitions"] = map[string]any{"owned": refs(c.OwnedCRDs), "required": refs(c.RequiredCRDs)}
	var deps []any
	for _, d := range c.Deployments {
		deps = append(deps, map[string]any{"name": d})
	}
	strategy := map[string]any{"deployments": deps}
	for key, perms := range map[string][]v1alpha1.StrategyDeploymentPermissions{"permissions": c.Permissions, "clusterPermissions": c.ClusterPermissions} {
		if len(perms) == 0 {
			continue
		}
		v, err := manifest.ToValue(perms)
		if err != nil {
			return nil, err
		}
		strategy[key] = v
	}
	spec["install"] = map[string]any{"strategy": "deployment", "spec": strategy}
	return map[string]any{
		"apiVersion": subscriptionAPIVersion,
		"kind":       "ClusterServiceVersion",
		"metadata":   md,
		"spec":       spec,
		"status":     map[string]any{"phase": "Succeeded"},
	}, nil
}

// indexServedKinds builds r.kinds.served: the CRDs of installed bundles first, then the CRDs the
// inputs, the previous round, the snapshot and the live cluster hold, then the platform.
func (sk *servedIndex) indexServedKinds() {
	sk.served = map[manifest.GroupKind]*servedKind{}
	elsewhere := map[manifest.GroupKind]bool{}
	add := func(def *crd.Definition, where string, bundle bool) {
		k := manifest.GroupKind{Group: def.Group, Kind: def.Kind}
		if !bundle {
			elsewhere[k] = true
		}
		if _, ok := sk.served[k]; ok {
			return
		}
		sk.served[k] = &servedKind{def: def, where: where, fromBundle: bundle}
	}
	for _, ib := range sk.subscribed {
		c := ib.bundle.Contents
		if c == nil {
			continue
		}
		for i := range c.CRDs {
			def, err := sk.r.cache.parseBundleCRD(ib.bundle, i)
			if err != nil {
				sk.r.warnOnce(onceKey{topic: "bundle-crd-parse", name: ib.bundle.Name, detail: c.CRDName(i)}, diag.Warnf(nil, "", "bundle %s: CRD %s cannot be read, so objects of its kind are not validated: %v", ib.bundle.Name, c.CRDName(i), err))
				continue
			}
			if ib.userManaged != "" {
				// installed by the user already: its CRDs do not arrive with the output
				add(def, "bundle "+ib.bundle.Name+" of userManaged operator "+ib.userManaged, false)
				continue
			}
			add(def, "bundle "+ib.bundle.Name, true)
		}
	}
	crdsFailed := func(origin cluster.Origin, err error) diag.Result {
		sk.unknownInstalls = append(sk.unknownInstalls, unknownInstall{name: "the CRDs of the " + string(origin)})
		return diag.Warnf(nil, "", "listing the CustomResourceDefinitions (%s) failed, so the kinds only that cluster serves are not known: objects of kinds nothing else serves are not validated: %v", origin, err)
	}
	for _, o := range sk.r.existingOr(crdAPIVersion, "CustomResourceDefinition", "", crdsFailed) {
		def, err := sk.r.cache.parseObjectCRD(o.Map)
		origin := cluster.OriginInputs
		if other, ok := sk.r.lookups.originOf[o]; ok {
			origin = other
		}
		if err != nil {
			sk.r.warnOnce(onceKey{topic: "crd-parse", name: o.Name()}, diag.Warnf(sk.anchorOf(o), "", "CRD %s (%s) cannot be read, so objects of its kind are not validated: %v", o.Name(), origin, err))
			continue
		}
		add(def, string(origin), false)
	}
	for k, s := range sk.served {
		if elsewhere[k] {
			s.fromBundle = false
		}
	}
}

// anchorOf is the object a result about o is anchored to: o when it is an input, else none.
func (sk *servedIndex) anchorOf(o *manifest.Object) *manifest.Object {
	if sk.r.lookups.isInput(o) {
		return o
	}
	return nil
}

func (c *renderCache) parseBundleCRD(b *catalog.Bundle, i int) (*crd.Definition, error) {
	key := crdCacheKey{contents: b.Contents, index: i}
	if p, ok := c.crdCache[key]; ok {
		return p.def, p.err
	}
	m, err := b.Contents.CRD(i)
	var def *crd.Definition
	if err == nil {
		def, err = crd.Parse(m)
	}
	c.crdCache[key] = parsedCRD{def, err}
	return def, err
}

func (c *renderCache) parseObjectCRD(m map[string]any) (*crd.Definition, error) {
	key := crdCacheKey{object: reflect.ValueOf(m).UnsafePointer()}
	if p, ok := c.crdCache[key]; ok {
		return p.def, p.err
	}
	def, err := crd.Parse(m)
	c.crdCache[key] = parsedCRD{def, err}
	return def, err
}

// crdCacheKey identifies a CRD across the rounds of a render: a bundle's i-th, or a decoded
// object (inputs and cluster reads are the same maps in every round).
type crdCacheKey struct {
	contents *catalog.Contents
	index    int
	object   any
}

// servedKindOf returns what serves an apiVersion's group and a kind, or nil.
func (sk *servedIndex) servedKindOf(apiVersion, kind string) *servedKind {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		group = ""
	}
	if group == api.Group && slices.Contains(odlmKinds, kind) {
		return &servedKind{where: "ODLM"}
	}
	if b, ok := platform.LookupBuiltin(group, kind); ok {
		return &servedKind{builtin: b, where: "Kubernetes"}
	}
	if s := sk.served[manifest.GroupKind{Group: group, Kind: kind}]; s != nil {
		return s
	}
	// the platform's CRDs (OLM's, OpenShift's), parsed on first use
	def, ok, err := platform.LookupCRD(group, kind)
	if !ok {
		return nil
	}
	if err != nil {
		sk.r.warnOnce(onceKey{topic: "platform-crd", kind: manifest.GroupKind{Group: group, Kind: kind}}, diag.Errorf(nil, "", "internal: the platform's CRD of %s %s cannot be read: %v", group, kind, err))
		return nil
	}
	if sk.served == nil {
		sk.served = map[manifest.GroupKind]*servedKind{}
	}
	s := &servedKind{def: def, where: "platform"}
	sk.served[manifest.GroupKind{Group: group, Kind: kind}] = s
	return s
}

// clusterScoped reports a kind whose objects have no namespace (the API server drops one).
func (sk *servedIndex) clusterScoped(apiVersion, kind string) bool {
	s := sk.servedKindOf(apiVersion, kind)
	return s != nil && !s.namespaced()
}

// schemaAnchor says where an emitted object's fields come from, for results: the input
// object and field that hold its spec (an OperandConfig service's spec entry, an
// OperandRequest operand's spec) or its whole data (an OperandConfig resource).
type schemaAnchor struct {
	about *manifest.Object
	field string
	data  bool
	// example is the alm-example an OperandConfig CR was made from (fieldorigin.go)
	example *almExample
}

// at returns the input field that holds the object's field path.
func (a schemaAnchor) at(path string) string {
	if a.data {
		return a.field + ".data." + path
	}
	if rest, ok := strings.CutPrefix(path, "spec."); ok {
		return a.field + "." + rest
	}
	return a.field // spec itself, or outside it: the field that holds the spec
}

// checkEmitted runs the API server's checks on every custom resource the pass emitted (docs/semantics.md,
// Decided deviations: nothing invalid, nothing silent): its kind and version must be served; fields the CRD does not know are pruned, with
// a warning; values the CRD refuses are errors. Scope: a cluster-scoped object has no
// namespace.
func (sk *servedIndex) checkEmitted() {
	for _, o := range sk.r.pass.renderedList {
		a, ok := sk.r.facts.anchorOf(o)
		if !ok {
			continue
		}
		if err := secret.CheckAPIVersion(o.APIVersion()); err != nil && strings.Contains(o.APIVersion(), "/") {
			// "/v1" would pass for the core group's v1 (versions of other groups are below)
			sk.r.add(diag.Errorf(a.about, a.kindField(), "%s: %v: the API server refuses it", o.Ref(), err))
			continue
		}
		s := sk.servedKindOf(o.APIVersion(), o.Kind())
		if s == nil {
			sk.notServed(o, a)
			continue
		}
		if !slices.Contains(s.versions(), versionOf(o.APIVersion())) {
			sk.r.add(diag.Errorf(a.about, a.kindField(), "%s: %s serves %s %s in version %s, not %s: the API server refuses it%s",
				o.Ref(), s.where, groupName(o), o.Kind(), strings.Join(s.versions(), ", "), versionOf(o.APIVersion()), suggest.DidYouMean(versionOf(o.APIVersion()), s.versions())))
			continue
		}
		if !s.namespaced() {
			if md, ok := o.Map["metadata"].(map[string]any); ok {
				delete(md, "namespace")
			}
		}
		if s.def == nil {
			if s.builtin != nil {
				sk.checkBuiltinRequired(o, a) // builtincheck.go
			}
			continue
		}
		check := s.def.Check
		if sk.r.opts.CRDDefaults {
			check = s.def.CheckDefaulted
		}
		res, err := check(o.Map)
		if err != nil {
			if errors.Is(err, crd.ErrVersionNotServed) {
				continue // answered above
			}
			if refused := (*crd.RulesRefusedError)(nil); errors.As(err, &refused) {
				sk.refusedCRD(o, a, s, refused)
				continue
			}
			sk.r.warnOnce(onceKey{topic: "crd-check", name: s.def.Name}, diag.Warnf(a.about, a.field, "%s is not validated: CRD %s (%s): %v", o.Ref(), s.def.Name, s.where, err))
			continue
		}
		for _, p := range res.Pruned {
			sk.r.add(a.prunedResult(o, s.def, s.where, p))
		}
		o.Map = res.Object
		for _, p := range res.Problems {
			sk.r.add(a.refusedResult(o, s.def, s.where, p))
		}
		if res.Deprecated != "" {
			sk.r.warnOnce(onceKey{topic: "deprecated", name: o.APIVersion(), detail: o.Kind()}, diag.Warnf(a.about, a.kindField(), "%s: CRD %s deprecates %s, and the API server warns: %s", o.Ref(), s.def.Name, o.APIVersion(), res.Deprecated))
		}
	}
}

// refusedCRD reports an object whose CRD the API server refuses (so it never creates the
// CRD, nor the object): the server's reasons with the first such object, the CRD alone with
// the others.
func (sk *servedIndex) refusedCRD(o *manifest.Object, a schemaAnchor, s *servedKind, refused *crd.RulesRefusedError) {
	what := fmt.Sprintf("%s cannot be created: the API server refuses CRD %s (%s), version %s", o.Ref(), s.def.Name, s.where, refused.Version)
	key := onceKey{topic: "crd-refused", name: s.def.Name, detail: refused.Version}
	if sk.r.pass.warned[key] {
		sk.r.add(diag.Errorf(a.about, a.field, "%s (its reasons are given with the first object of it)", what))
		return
	}
	sk.r.warnOnce(key, diag.Errorf(a.about, a.field, "%s: %s", what, refused.Reasons()))
}

func (a schemaAnchor) kindField() string {
	if a.data {
		return a.field + ".data.apiVersion"
	}
	return a.field
}

// groupName names an object's API group in messages.
func groupName(o *manifest.Object) string {
	if o.Group() == "" {
		return "core"
	}
	return o.Group()
}

func lastField(path string) string {
	i := strings.LastIndexByte(path, '.')
	f := path[i+1:]
	if j := strings.IndexByte(f, '['); j >= 0 {
		f = f[:j]
	}
	return f
}

// notServed reports an object whose kind nothing known serves: an error, unless an
// operator whose CRDs are unknown may serve it. When that operator is known (its bundle lists
// the kind, or the object is one of its operand CRs) the render says once per operator that
// its kinds are not validated, in every mode; else once per kind.
func (sk *servedIndex) notServed(o *manifest.Object, a schemaAnchor) {
	if u, ok := sk.unknownServer(o, a); ok {
		sk.r.warnOnce(onceKey{topic: "unvalidated", name: u.name}, u.info())
		return
	}
	if len(sk.unknownInstalls) > 0 {
		names := make([]string, 0, len(sk.unknownInstalls))
		for _, u := range sk.unknownInstalls {
			names = append(names, u.name)
		}
		slices.Sort(names)
		sk.r.warnOnce(onceKey{topic: "unserved", kind: manifest.GroupKindOf(o)}, diag.Warnf(a.about, a.kindField(), "%s: no CRD the render knows serves %s %s, and the CRDs of %s are unknown, so it is not validated", o.Ref(), o.APIVersion(), o.Kind(), strings.Join(slices.Compact(names), ", ")))
		return
	}
	var kinds []string
	for _, s := range sk.served {
		if s.def != nil {
			kinds = append(kinds, s.def.Kind)
		}
	}
	kinds = append(kinds, platform.CRDKinds()...)
	slices.Sort(kinds)
	sk.r.add(diag.Errorf(a.about, a.kindField(), "%s: no CRD or built-in type serves %s %s: the API server refuses it%s. The render knows the CRDs of the bundles it installs, of the operators the registries mark userManaged (from the catalog), of the inputs, the snapshot and the live cluster: if the cluster serves this kind, give its CRD among the inputs or in a --snapshot folder, the catalog entry of the operator that provides it (--catalog), or read the cluster with --live",
		o.Ref(), o.APIVersion(), o.Kind(), suggest.DidYouMean(o.Kind(), slices.Compact(kinds))))
}

// unknownServer is the operator with unknown CRDs that serves o, if the render can tell: a
// bundle without contents whose olm.gvks list o's kind, or the operator o is an operand CR
// of (an alm-example or a request's CR). An OperandConfig resource may be of anyone's kind,
// so its operator says nothing.
func (sk *servedIndex) unknownServer(o *manifest.Object, a schemaAnchor) (unknownInstall, bool) {
	for _, u := range sk.unknownInstalls {
		if u.bundle == nil {
			continue
		}
		for _, g := range u.bundle.ProvidedGVKs {
			if g.Group == o.Group() && g.Kind == o.Kind() {
				return u, true
			}
		}
	}
	if p, ok := sk.r.facts.operatorOf(o); ok && !a.data {
		for _, u := range sk.unknownInstalls {
			if u.plan == p {
				return u, true
			}
		}
	}
	return unknownInstall{}, false
}

// versionOf is the version part of an apiVersion.
func versionOf(apiVersion string) string {
	if _, v, ok := strings.Cut(apiVersion, "/"); ok {
		return v
	}
	return apiVersion
}

// installTargets are what producedAtRuntime needs: the kinds the bundles the render installs
// provide (noteInstalledBundles found them), and the namespaces operators and operands go to.
func installTargets(subs []*subscriptionPlan, subscribed []subscribedBundle, configs map[key]*operandConfig) (provided map[manifest.GroupKind]bool, namespaces map[string]bool) {
	provided, namespaces = map[manifest.GroupKind]bool{}, map[string]bool{}
	for _, p := range subs {
		if p.obj != nil {
			namespaces[p.namespace] = true
		}
	}
	for _, ib := range subscribed {
		if ib.plan == nil || ib.plan.obj == nil {
			continue // installed already, not by this render
		}
		for _, g := range ib.bundle.ProvidedGVKs {
			provided[manifest.GroupKind{Group: g.Group, Kind: g.Kind}] = true
		}
	}
	for k := range configs {
		namespaces[k.Namespace] = true
	}
	return provided, namespaces
}
