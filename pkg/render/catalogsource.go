package render

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/olm"
)

const catalogSourceAPIVersion = olmGroup + "/v1alpha1"

// excludedCatalogSourceAnnotation on an OperandRegistry lists CatalogSource names ODLM never
// picks (comma-separated, not trimmed: ODLM compares the raw pieces).
const excludedCatalogSourceAnnotation = "excluded-catalogsource"

// catalogImageTemplateAnnotation is OLM's image template of a CatalogSource.
const catalogImageTemplateAnnotation = "olm.catalogImageTemplate"

// catalogSource is a CatalogSource known from the inputs or a snapshot.
type catalogSource struct {
	namespace, name string
	priority        int
	obj             map[string]any
	input           *manifest.Object // when it is an input
}

// catalogSources lists the CatalogSources among the inputs, then those only in snapshots.
func (oi *olmInstall) catalogSources() []*catalogSource {
	if oi.knownCatalogSources != nil {
		return oi.knownCatalogSources
	}
	seen := map[string]bool{}
	add := func(m map[string]any, in *manifest.Object) {
		o := &manifest.Object{Map: m}
		if in != nil {
			o = in
		}
		k := o.Namespace() + "/" + o.Name()
		if seen[k] {
			return
		}
		seen[k] = true
		cs := &catalogSource{namespace: o.Namespace(), name: o.Name(), obj: m, input: in}
		// ODLM lists CatalogSources with OLM's type: a spec that does not decode leaves
		// the priority at 0
		typed, err := olm.CatalogSourceSpec(m["spec"])
		if err != nil {
			field, err := olm.Locate(err, "spec")
			oi.r.add(diag.Warnf(o, field, "not a valid OLM CatalogSource (%v): ODLM reads its priority as 0", err))
		}
		cs.priority = typed.Priority
		oi.knownCatalogSources = append(oi.knownCatalogSources, cs)
	}
	for _, o := range oi.r.existing(catalogSourceAPIVersion, "CatalogSource", "") {
		in := o
		if !oi.r.lookups.isInput(o) {
			in = nil
		}
		add(o.Map, in)
	}
	if oi.knownCatalogSources == nil {
		oi.knownCatalogSources = []*catalogSource{}
	}
	return oi.knownCatalogSources
}

// chooseCatalogSource is ODLM's choice for an entry without sourceName/sourceNamespace
// (docs/semantics.md, Resolving a registry entry: catalog and channel resolution): every
// CatalogSource that offers the package to the entry's namespace and that the registry does
// not exclude is a candidate (offeringCandidates), in the order of catalogSourceBefore. It
// says which it chose and why; when there is no candidate it returns false and why not, for
// the error that follows.
func (oi *olmInstall) chooseCatalogSource(e *entry) (bool, string) {
	excluded := map[string]bool{}
	if a := e.registry.obj.Annotations()[excludedCatalogSourceAnnotation]; a != "" {
		for _, name := range strings.Split(a, ",") {
			excluded[name] = true
		}
	}
	var candidates []*catalogSource
	var all []string
	for _, cs := range oi.offeringCandidates(e) {
		all = append(all, cs.namespace+"/"+cs.name)
		if !excluded[cs.name] {
			candidates = append(candidates, cs)
		}
	}
	if len(candidates) == 0 {
		switch {
		case len(all) > 0:
			return false, fmt.Sprintf("every CatalogSource that offers package %s (%s) is in its registry's %s annotation", e.PackageName, strings.Join(all, ", "), excludedCatalogSourceAnnotation)
		case len(oi.catalogSources()) == 0 && len(oi.r.catalogs.Named) == 0:
			return false, "no CatalogSource is known to choose from"
		default:
			return false, fmt.Sprintf("no CatalogSource known offers package %s to namespace %s (%s)", e.PackageName, e.Namespace, oi.describeOffers(e))
		}
	}
	candidates = preferChannel(candidates, e, oi.channelsOf(e))
	own := oi.odlmCatalog()
	sort.SliceStable(candidates, func(i, j int) bool { return catalogSourceBefore(candidates[i], candidates[j], e.Namespace, own) })
	chosen := candidates[0]
	var names []string
	for _, c := range candidates {
		names = append(names, c.namespace+"/"+c.name)
	}
	only := "the only CatalogSource known (inputs and snapshots)"
	if !oi.r.catalogs.Empty() { // the candidates are those that offer the package
		only = "the only CatalogSource known that offers package " + e.PackageName
		if e.Channel != "" {
			only += " (channel " + e.Channel + " or a fallback)"
		}
	}
	oi.r.add(diag.Infof(e.registry.obj, e.field("sourceName"), "operator %q names no CatalogSource: using %s/%s, %s (candidates in ODLM's order: %s)", e.Name, chosen.namespace, chosen.name, whyChosen(candidates, e.Namespace, own, only), strings.Join(names, ", ")))
	e.SourceName, e.SourceNamespace = chosen.name, chosen.namespace
	return true, ""
}

// catalogSourceBefore is ODLM's order of candidate CatalogSources (docs/semantics.md, Resolving a registry entry: catalog and channel resolution): those in
// the operator's namespace first, then higher priority, then the one ODLM itself was
// installed from, then (same namespace) by name, else by namespace.
func catalogSourceBefore(a, b *catalogSource, namespace string, own *odlmCatalog) bool {
	if (a.namespace == namespace) != (b.namespace == namespace) {
		return a.namespace == namespace
	}
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if own.is(a) != own.is(b) {
		return own.is(a)
	}
	if a.namespace == b.namespace {
		return a.name < b.name
	}
	return a.namespace < b.namespace
}

// whyChosen names the rule that put the first candidate ahead of the second; only is what it
// says of a lone candidate.
func whyChosen(candidates []*catalogSource, namespace string, own *odlmCatalog, only string) string {
	chosen := candidates[0]
	if len(candidates) == 1 {
		return only
	}
	next := candidates[1]
	switch {
	case chosen.namespace == namespace && next.namespace != namespace:
		return "the only candidate in the operator's namespace " + namespace
	case chosen.priority != next.priority:
		return fmt.Sprintf("the highest priority (%d)", chosen.priority)
	case own.is(chosen) && !own.is(next):
		return fmt.Sprintf("the one ODLM itself was installed from (Subscription %s of package %s), first among equal priorities", own.subscription, odlmPackage)
	default:
		return "first by namespace and name among equal priorities"
	}
}

// odlmPackage is the OLM package of ODLM itself.
const odlmPackage = "ibm-odlm"

// odlmCatalog is the CatalogSource ODLM was installed from, which wins ties (docs/semantics.md, Resolving a registry entry: catalog and
// channel resolution): the source of ODLM's own Subscription. A nil *odlmCatalog is "unknown".
type odlmCatalog struct {
	namespace, name string
	subscription    string // namespace/name of ODLM's Subscription, for messages
}

func (o *odlmCatalog) is(cs *catalogSource) bool {
	return o != nil && cs.namespace == o.namespace && cs.name == o.name
}

// odlmCatalog finds ODLM's own Subscription (package ibm-odlm) among the inputs, the
// snapshot and the live cluster (docs/semantics.md, Decided deviations: one look-up order). ODLM knows its namespace and reads the one there;
// the render does not, so Subscriptions of ibm-odlm from different CatalogSources (two ODLM
// installs) leave it unknown, with a warning, rather than guessing.
func (oi *olmInstall) odlmCatalog() *odlmCatalog {
	if oi.ownCatalog != nil {
		return oi.ownCatalog.found
	}
	oi.ownCatalog = &ownCatalogLookup{}
	bySource := map[string]*odlmCatalog{}
	var subs []string
	for _, s := range oi.r.kinds.allSubscriptions() {
		if s.String("spec", "name") != odlmPackage || s.String("spec", "source") == "" || s.String("spec", "sourceNamespace") == "" {
			continue
		}
		k := s.String("spec", "sourceNamespace") + "/" + s.String("spec", "source")
		subs = append(subs, fmt.Sprintf("%s/%s uses %s", s.Namespace(), s.Name(), k))
		if _, ok := bySource[k]; !ok {
			bySource[k] = &odlmCatalog{namespace: s.String("spec", "sourceNamespace"), name: s.String("spec", "source"), subscription: s.Namespace() + "/" + s.Name()}
		}
	}
	switch len(bySource) {
	case 0:
	case 1:
		for _, c := range bySource {
			oi.ownCatalog.found = c
		}
	default:
		oi.r.add(diag.Warnf(nil, "", "Subscriptions of package %s use different CatalogSources (%s): which one ODLM was installed from is unknown, so it breaks no tie between CatalogSources of equal priority", odlmPackage, strings.Join(subs, "; ")))
	}
	return oi.ownCatalog.found
}

// ownCatalogLookup caches odlmCatalog's answer for a round (found is nil when unknown).
type ownCatalogLookup struct{ found *odlmCatalog }

var templateVarRe = regexp.MustCompile(`\{kube_(major|minor|patch)_version\}`)

// resolveImageTemplate applies OLM's olm.catalogImageTemplate rules: the kube version
// variables are replaced; a result that is not a usable pull spec falls back to spec.image.
func resolveImageTemplate(template, kubeVersion string) (string, bool) {
	if kubeVersion == "" {
		return "", false
	}
	parts := strings.SplitN(strings.TrimPrefix(kubeVersion, "v"), ".", 3)
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	if i := strings.IndexAny(parts[2], "-+"); i >= 0 {
		parts[2] = parts[2][:i]
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return "", false
		}
	}
	out := templateVarRe.ReplaceAllStringFunc(template, func(v string) string {
		switch v {
		case "{kube_major_version}":
			return parts[0]
		case "{kube_minor_version}":
			return parts[1]
		default:
			return parts[2]
		}
	})
	if strings.ContainsAny(out, "{}") {
		return "", false
	}
	if _, err := name.ParseReference(out); err != nil {
		return "", false // not a pull spec: OLM falls back to spec.image
	}
	return out, true
}

// emitCatalogSources writes the CatalogSources the rendered Subscriptions use, with the
// image template resolved for Options.KubeVersion, so that OLM has nothing to rewrite and a
// GitOps tool nothing to fight over. An input CatalogSource is replaced; one known only from
// a snapshot is emitted without its cluster-managed fields.
func (oi *olmInstall) emitCatalogSources() {
	if !oi.r.opts.EmitCatalogSources {
		return
	}
	used := map[string]*subscriptionPlan{}
	var order []string
	for _, p := range oi.r.operators.subscriptions {
		if p.obj == nil {
			continue
		}
		k := p.obj.String("spec", "sourceNamespace") + "/" + p.obj.String("spec", "source")
		if _, ok := used[k]; !ok {
			order = append(order, k)
		}
		used[k] = p
	}
	sort.Strings(order)
	byKey := map[string]*catalogSource{}
	for _, cs := range oi.catalogSources() {
		byKey[cs.namespace+"/"+cs.name] = cs
	}
	for _, k := range order {
		about, field := used[k].about()
		cs, ok := byKey[k]
		if !ok {
			oi.r.add(diag.Warnf(about, field, "CatalogSource %s is not among the inputs or snapshots: not emitted (--emit-catalogsources)", k))
			continue
		}
		obj := manifest.New(cleanClusterFields(merge.DeepCopy(cs.obj).(map[string]any)))
		if tmpl := obj.Annotations()[catalogImageTemplateAnnotation]; tmpl != "" {
			image, ok := resolveImageTemplate(tmpl, oi.r.opts.KubeVersion)
			switch {
			case ok:
				manifest.EnsureMap(obj.Map, "spec")["image"] = image
			case obj.String("spec", "image") != "":
				oi.r.add(diag.Warnf(about, field, "CatalogSource %s: %s %q does not resolve to an image for Kubernetes %q: spec.image is kept, as OLM falls back to it", k, catalogImageTemplateAnnotation, tmpl, oi.r.opts.KubeVersion))
			default:
				oi.r.add(diag.Errorf(about, field, "CatalogSource %s has no spec.image and %s %q does not resolve for Kubernetes %q (give --kube-version)", k, catalogImageTemplateAnnotation, tmpl, oi.r.opts.KubeVersion))
				continue
			}
		}
		oi.mirrorCatalogImage(obj)
		oi.r.madeAsController(obj)
		if cs.input != nil {
			obj.Source = cs.input.Source
			oi.r.pass.replaced[cs.input] = obj
			continue
		}
		oi.r.emit(obj)
	}
}

// cleanClusterFields drops what a cluster adds to an object (status, uid, resourceVersion,
// managedFields…), so that an object exported from a cluster can be applied again.
func cleanClusterFields(m map[string]any) map[string]any {
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink", "ownerReferences"} {
			delete(md, f)
		}
		if a, ok := md["annotations"].(map[string]any); ok {
			delete(a, "kubectl.kubernetes.io/last-applied-configuration")
		}
	}
	return m
}

// mirrorCatalogImage points an emitted CatalogSource at the mirror (Options.ImageMirrors):
// its image, and its olm.catalogImageTemplate, which OLM would otherwise use to set the
// image back to the source registry.
func (oi *olmInstall) mirrorCatalogImage(obj *manifest.Object) {
	mirrors := oi.r.opts.ImageMirrors
	if len(mirrors) == 0 {
		return
	}
	if image := obj.String("spec", "image"); image != "" {
		manifest.EnsureMap(obj.Map, "spec")["image"] = mirrorImage(image, mirrors)
	}
	if tmpl := obj.Annotations()[catalogImageTemplateAnnotation]; tmpl != "" {
		obj.SetMetadataString("annotations", catalogImageTemplateAnnotation, mirrorImage(tmpl, mirrors))
	}
}
