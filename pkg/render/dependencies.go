package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// requirementAdvice says what OLM v0 would install for a requirement of the bundle p
// installs (Catalog.Candidate over dependencySources, OLM's order; its own resolver is the
// oracle in the tests), so that a render that cannot resolve dependencies (OLM v1, no OLM)
// names what to add to the registry.
func (oi *olmInstall) requirementAdvice(p *subscriptionPlan, req catalog.Requirement) string {
	ns, name := p.source()
	c, ok := oi.dependencyCandidate(ns, name, p.namespace, req.Match)
	if !ok {
		return "no catalog given offers it"
	}
	return fmt.Sprintf("OLM v0 would install %s: add package %s to the registry and request it", c, c.Bundle.Package)
}

// requirementsOf are a bundle's requirements; one OLM cannot read is an error (OLM's
// resolution of the namespace fails on it) and the bundle then has none.
func (oi *olmInstall) requirementsOf(p *subscriptionPlan, b *catalog.Bundle) []catalog.Requirement {
	reqs, err := b.Requirements()
	if err != nil {
		about, field := p.about()
		oi.r.add(diag.Errorf(about, field, "%v: OLM v0 resolves nothing in namespace %s (ResolutionFailed)", err, p.namespace))
		return nil
	}
	return reqs
}

// dependencies reports, for OLM v0, what OLM adds to a Subscription's namespace for the
// requirements of the bundle it installs (olm.package.required, olm.gvk.required,
// olm.constraint: catalog.Requirement) that nothing in the namespace satisfies already (the
// bundles other Subscriptions there install, the CSVs and Subscriptions the cluster has
// there), and then for the requirements of what it adds, and so on: an info naming each
// bundle, channel and CatalogSource OLM v0 picks (dependencyCandidate), so that a team can
// request it and own it in Git. A requirement that no CatalogSource searched offers is a
// warning (the catalogs given often hold only what the render installs; OLM then resolves it
// from another CatalogSource, or the namespace fails to resolve); one whose package a
// catalog searched has, but in no version that satisfies it, is an error: OLM's resolution
// of the namespace fails (ResolutionFailed).
func (oi *olmInstall) dependencies(p *subscriptionPlan, head *catalog.Bundle) {
	if oi.r.opts.OLM == OLMv1 || oi.r.opts.OLM == OLMNone {
		return // their own checks refuse dependencies (olmv1.go, plain.go)
	}
	about, field := p.about()
	ns, name := p.source()
	var added []*catalog.Bundle
	queue := []*catalog.Bundle{head}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		by := "bundle " + b.Name
		if b != head {
			by += " (which OLM installs for " + head.Name + ")"
		}
		for _, req := range oi.requirementsOf(p, b) {
			if oi.namespaceSatisfies(p, req.Match) || slices.ContainsFunc(added, req.Match) {
				continue
			}
			what := fmt.Sprintf("%s requires %s (%s)", by, req.What, req.Property)
			c, found := oi.dependencyCandidate(ns, name, p.namespace, req.Match)
			if !found {
				oi.unresolved(about, field, p, what, req)
				continue
			}
			oi.dependency(about, field, p, what, c)
			added = append(added, c.Bundle)
			queue = append(queue, c.Bundle)
		}
	}
}

// unresolved reports a requirement no CatalogSource searched satisfies: an error when the
// required package is there in other versions (OLM's resolution fails), else a warning.
func (oi *olmInstall) unresolved(about *manifest.Object, field string, p *subscriptionPlan, what string, req catalog.Requirement) {
	ns, name := p.source()
	because := ""
	if req.FailureMessage != "" {
		because = fmt.Sprintf(" (its failureMessage: %q)", req.FailureMessage)
	}
	if req.Package != "" {
		var versions []string
		var where []string
		for _, s := range oi.dependencySources(ns, name, p.namespace) {
			if pkg, ok := s.catalog.Package(req.Package); ok {
				where = append(where, s.namespace+"/"+s.name)
				for _, b := range pkg.Bundles {
					versions = append(versions, b.Version)
				}
			}
		}
		if len(where) > 0 {
			slices.Sort(versions)
			versions = slices.Compact(versions)
			oi.r.add(diag.Errorf(about, field, "%s, which no bundle satisfies: package %s has versions %s in CatalogSource %s, none in that range (or all deprecated): OLM v0 installs nothing in namespace %s (ResolutionFailed: constraints not satisfiable)%s",
				what, req.Package, strings.Join(versions, ", "), strings.Join(where, ", "), p.namespace, because))
			return
		}
	}
	oi.r.add(diag.Warnf(about, field, "%s, which no catalog given offers: OLM v0 resolves it from another CatalogSource, or nothing installs in namespace %s (ResolutionFailed)%s", what, p.namespace, because))
}

// dependency reports one requirement and what OLM v0 installs for it; with
// DependenciesSubscriptions, the Subscription OLM would create is written too
// (emitDependencySubscriptions).
func (oi *olmInstall) dependency(about *manifest.Object, field string, p *subscriptionPlan, what string, c sourcedCandidate) {
	if oi.r.opts.Dependencies == DependenciesSubscriptions {
		sub := oi.dependencySubscription(p, c)
		oi.r.add(diag.Infof(about, field, "%s: OLM v0 also installs %s into namespace %s: Subscription %s is written for it, as OLM would create it (--dependencies subscriptions)",
			what, c, p.namespace, sub.Name()))
		return
	}
	oi.r.add(diag.Infof(about, field, "%s: OLM v0 also installs %s into namespace %s, with a Subscription of its own; request package %s to own it in Git (or --dependencies subscriptions)",
		what, c, p.namespace, c.Bundle.Package))
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

// namespaceSatisfies says whether the namespace already has an operator that matches, which
// OLM's resolver takes before any catalog's: a bundle another Subscription the render writes
// there installs (the head of its channel), a Subscription the cluster has there (its
// installed CSV, else the head of its channel), or a CSV the cluster has there.
func (oi *olmInstall) namespaceSatisfies(p *subscriptionPlan, match func(*catalog.Bundle) bool) bool {
	for _, q := range oi.r.operators.subscriptions {
		if q == p || q.obj == nil || q.namespace != p.namespace {
			continue
		}
		if head := oi.headOf(q.obj); head != nil && match(head) {
			return true
		}
	}
	for _, sub := range oi.r.existing(subscriptionAPIVersion, "Subscription", p.namespace) {
		if origin, known := oi.r.lookups.originOf[sub]; known && origin != cluster.OriginSnapshot && origin != cluster.OriginLive {
			continue // the render's own (a dependency Subscription of an earlier round)
		}
		if slices.ContainsFunc(oi.r.operators.subscriptions, func(q *subscriptionPlan) bool { return q.existing == sub && (q == p || q.obj != nil) }) {
			continue // p itself, or counted above
		}
		if b := oi.installedBy(sub); b != nil && match(b) {
			return true
		}
	}
	for _, csv := range oi.r.existing(subscriptionAPIVersion, "ClusterServiceVersion", p.namespace) {
		if b := csvAsBundle(csv); b != nil && match(b) {
			return true
		}
	}
	return false
}

// headOf is the head of the channel a Subscription follows, in its CatalogSource's catalog.
func (oi *olmInstall) headOf(sub *manifest.Object) *catalog.Bundle {
	pkg, ok := oi.r.catalogs.Package(sub.String("spec", "sourceNamespace"), sub.String("spec", "source"), sub.String("spec", "name"))
	if !ok {
		return nil
	}
	head, err := pkg.HeadBundle(pkg.ChannelOrDefault(sub.String("spec", "channel")))
	if err != nil {
		return nil
	}
	return head
}

// installedBy is the bundle a cluster's Subscription has installed (status.installedCSV in
// its catalog), else the head of its channel.
func (oi *olmInstall) installedBy(sub *manifest.Object) *catalog.Bundle {
	if csv := sub.String("status", "installedCSV"); csv != "" {
		if pkg, ok := oi.r.catalogs.Package(sub.String("spec", "sourceNamespace"), sub.String("spec", "source"), sub.String("spec", "name")); ok {
			for _, b := range pkg.Bundles {
				if b.CSVName == csv || b.Name == csv {
					return b
				}
			}
		}
	}
	return oi.headOf(sub)
}

// csvAsBundle reads a cluster's ClusterServiceVersion as the bundle it was installed from,
// as far as OLM's resolver reads it: its package and version (the olm.package property OLM
// writes in its operatorframework.io/properties annotation), the APIs it owns (CRDs and
// API services) and its other properties. nil for an object that says none of it.
func csvAsBundle(csv *manifest.Object) *catalog.Bundle {
	b := &catalog.Bundle{Name: csv.Name(), CSVName: csv.Name(), Version: csv.String("spec", "version")}
	var props struct {
		Properties []struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"properties"`
	}
	if text := csv.Annotations()["operatorframework.io/properties"]; text != "" && json.Unmarshal([]byte(text), &props) == nil {
		for _, p := range props.Properties {
			v, _ := p.Value.(map[string]any)
			switch p.Type {
			case "olm.package":
				b.Package, _ = v["packageName"].(string)
				if version, ok := v["version"].(string); ok {
					b.Version = version
				}
			case "olm.gvk":
				g, _ := v["group"].(string)
				ver, _ := v["version"].(string)
				k, _ := v["kind"].(string)
				b.ProvidedGVKs = append(b.ProvidedGVKs, catalog.GVK{Group: g, Version: ver, Kind: k})
			default:
				b.Properties = append(b.Properties, catalog.Property{Type: p.Type, Value: p.Value})
			}
		}
	}
	for _, section := range []string{"customresourcedefinitions", "apiservicedefinitions"} {
		owned, _ := manifest.Get(csv.Map, "spec", section, "owned").([]any)
		for _, o := range owned {
			m, _ := o.(map[string]any)
			name, _ := m["name"].(string)
			g, _ := m["group"].(string)
			if section == "customresourcedefinitions" {
				_, g, _ = strings.Cut(name, ".")
			}
			ver, _ := m["version"].(string)
			k, _ := m["kind"].(string)
			if gvk := (catalog.GVK{Group: g, Version: ver, Kind: k}); k != "" && !slices.Contains(b.ProvidedGVKs, gvk) {
				b.ProvidedGVKs = append(b.ProvidedGVKs, gvk)
			}
		}
	}
	if b.Package == "" && len(b.ProvidedGVKs) == 0 {
		return nil
	}
	return b
}
