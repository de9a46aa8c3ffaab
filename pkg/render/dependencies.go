package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// packageAdvice says what OLM v0 would install for an olm.package.required dependency of the
// bundle p installs (catalog.PackageCandidate over dependencySources, OLM's order; its own
// resolver is the oracle in the tests), so that a render that cannot resolve dependencies
// (OLM v1, no OLM) names what to add to the registry.
func (oi *olmInstall) packageAdvice(p *subscriptionPlan, q catalog.PackageRequirement) string {
	ns, name := p.source()
	c, ok := oi.dependencyCandidate(ns, name, p.namespace, func(cat *catalog.Catalog) (catalog.Candidate, bool) { return cat.PackageCandidate(q) })
	return advice(c, ok, "no catalog given offers it")
}

// gvkAdvice is packageAdvice for an olm.gvk.required dependency.
func (oi *olmInstall) gvkAdvice(p *subscriptionPlan, g catalog.GVK) string {
	ns, name := p.source()
	c, ok := oi.dependencyCandidate(ns, name, p.namespace, func(cat *catalog.Catalog) (catalog.Candidate, bool) { return cat.GVKCandidate(g) })
	return advice(c, ok, "no catalog given provides it")
}

// advice names the candidate OLM v0 picks, or says none when there is none.
func advice(c sourcedCandidate, found bool, none string) string {
	if !found {
		return none
	}
	return fmt.Sprintf("OLM v0 would install %s (package %s, channel %s, CatalogSource %s/%s): add package %s to the registry and request it",
		c.Bundle.Name, c.Bundle.Package, c.Channel, c.namespace, c.name, c.Bundle.Package)
}

// dependencies reports, for OLM v0, what OLM adds to a Subscription's namespace for the
// requirements of the bundle it installs (olm.package.required, olm.gvk.required) that no other
// Subscription of the namespace satisfies: an info naming the bundle and channel OLM v0 picks
// from the CatalogSources it searches (dependencyCandidate), so that a team can request it
// and own it in Git; a warning when no catalog given offers one (OLM then resolves it from
// another CatalogSource, or the namespace fails to resolve: ResolutionFailed). An
// olm.constraint is an info: only OLM's resolver evaluates it.
func (oi *olmInstall) dependencies(p *subscriptionPlan, head *catalog.Bundle) {
	if oi.r.opts.OLM == OLMv1 || oi.r.opts.OLM == OLMNone {
		return // their own checks refuse dependencies (olmv1.go, plain.go)
	}
	about, field := p.about()
	ns, name := p.source()
	for _, q := range head.RequiredPackages {
		if oi.namespaceInstalls(p, func(b *catalog.Bundle) bool { return b.Satisfies(q) }) {
			continue
		}
		what := fmt.Sprintf("bundle %s requires package %s %s (olm.package.required)", head.Name, q.PackageName, q.VersionRange)
		c, found := oi.dependencyCandidate(ns, name, p.namespace, func(cat *catalog.Catalog) (catalog.Candidate, bool) { return cat.PackageCandidate(q) })
		oi.dependency(about, field, p, what, c, found)
	}
	for _, g := range head.RequiredGVKs {
		if oi.namespaceInstalls(p, func(b *catalog.Bundle) bool { return slices.Contains(b.ProvidedGVKs, g) }) {
			continue
		}
		what := fmt.Sprintf("bundle %s requires %s/%s %s (olm.gvk.required)", head.Name, g.Group, g.Version, g.Kind)
		c, found := oi.dependencyCandidate(ns, name, p.namespace, func(cat *catalog.Catalog) (catalog.Candidate, bool) { return cat.GVKCandidate(g) })
		oi.dependency(about, field, p, what, c, found)
	}
	for _, prop := range head.Properties {
		if prop.Type == "olm.constraint" {
			oi.r.add(diag.Infof(about, field, "bundle %s declares an olm.constraint: OLM's resolver evaluates it when it installs the bundle (not checked here)", head.Name))
		}
	}
}

// dependency reports one requirement and what OLM v0 installs for it; with
// DependenciesSubscriptions, the Subscription OLM would create is written too
// (emitDependencySubscriptions).
func (oi *olmInstall) dependency(about *manifest.Object, field string, p *subscriptionPlan, what string, c sourcedCandidate, found bool) {
	if !found {
		oi.r.add(diag.Warnf(about, field, "%s, which no catalog given offers: OLM v0 resolves it from another CatalogSource, or nothing installs in namespace %s (ResolutionFailed)", what, p.namespace))
		return
	}
	if oi.r.opts.Dependencies == DependenciesSubscriptions {
		sub := oi.dependencySubscription(p, c)
		oi.r.add(diag.Infof(about, field, "%s: OLM v0 also installs %s (package %s, channel %s, CatalogSource %s/%s) into namespace %s: Subscription %s is written for it, as OLM would create it (--dependencies subscriptions)",
			what, c.Bundle.Name, c.Bundle.Package, c.Channel, c.namespace, c.name, p.namespace, sub.Name()))
		return
	}
	oi.r.add(diag.Infof(about, field, "%s: OLM v0 also installs %s (package %s, channel %s, CatalogSource %s/%s) into namespace %s, with a Subscription of its own; request package %s to own it in Git (or --dependencies subscriptions)",
		what, c.Bundle.Name, c.Bundle.Package, c.Channel, c.namespace, c.name, p.namespace, c.Bundle.Package))
}

// dependencySubscription is the Subscription OLM v0 creates for a dependency of p's bundle:
// named <package>-<channel>-<catalog>-<catalog namespace>, in p's namespace, from the
// CatalogSource the bundle is picked from, with startingCSV that bundle and Automatic
// approval. It is kept for emitDependencySubscriptions, once per name.
func (oi *olmInstall) dependencySubscription(p *subscriptionPlan, c sourcedCandidate) *manifest.Object {
	source, sourceNS := c.name, c.namespace
	name := strings.Join([]string{c.Bundle.Package, c.Channel, source, sourceNS}, "-")
	key := p.namespace + "/" + name
	if obj, ok := oi.dependencySubs[key]; ok {
		return obj
	}
	obj := manifest.New(map[string]any{
		"apiVersion": subscriptionAPIVersion,
		"kind":       "Subscription",
		"metadata":   map[string]any{"name": name, "namespace": p.namespace},
		"spec": map[string]any{
			"name": c.Bundle.Package, "channel": c.Channel, "source": source, "sourceNamespace": sourceNS,
			"startingCSV": csvName(c.Bundle), "installPlanApproval": "Automatic",
		},
	})
	if oi.dependencySubs == nil {
		oi.dependencySubs = map[string]*manifest.Object{}
	}
	oi.dependencySubs[key] = obj
	return obj
}

// emitDependencySubscriptions writes the Subscriptions of dependencies, sorted by namespace
// and name.
func (oi *olmInstall) emitDependencySubscriptions() {
	for _, key := range slices.Sorted(maps.Keys(oi.dependencySubs)) {
		oi.r.emit(oi.dependencySubs[key])
	}
}

// namespaceInstalls says whether another Subscription the render writes in p's namespace
// installs a bundle (the head of its channel) that matches: OLM's resolver takes an operator
// the namespace has before any catalog's.
func (oi *olmInstall) namespaceInstalls(p *subscriptionPlan, match func(*catalog.Bundle) bool) bool {
	for _, q := range oi.r.subscriptions {
		if q == p || q.obj == nil || q.namespace != p.namespace {
			continue
		}
		pkg, ok := oi.r.packageOf(q, q.obj.String("spec", "name"))
		if !ok {
			continue
		}
		if head, err := pkg.HeadBundle(pkg.ChannelOrDefault(q.obj.String("spec", "channel"))); err == nil && match(head) {
			return true
		}
	}
	return false
}
