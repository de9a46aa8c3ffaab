package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/channel"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// source is the CatalogSource ("namespace", "name") the Subscription installs from: the
// written one's, else the existing one's, else its first entry's ("" when none says).
func (p *subscriptionPlan) source() (namespace, name string) {
	for _, o := range []*manifest.Object{p.obj, p.existing} {
		if o == nil {
			continue
		}
		if o.String("spec", "source") != "" || o.String("spec", "sourceNamespace") != "" {
			return o.String("spec", "sourceNamespace"), o.String("spec", "source")
		}
	}
	if len(p.contributions) > 0 {
		e := p.contributions[0].entry
		return e.SourceNamespace, e.SourceName
	}
	return "", ""
}

// packageOf is package pkgName in the catalog of p's CatalogSource (catalog.Set.Package).
func (r *run) packageOf(p *subscriptionPlan, pkgName string) (*catalog.Package, bool) {
	ns, name := p.source()
	return r.catalogs.Package(ns, name, pkgName)
}

// packageOfEntry is the entry's package in the catalog of its CatalogSource.
func (r *run) packageOfEntry(e *entry) (*catalog.Package, bool) {
	return r.catalogs.Package(e.SourceNamespace, e.SourceName, e.PackageName)
}

// dependencySource is a CatalogSource OLM v0's resolver searches for a dependency, with its
// content.
type dependencySource struct {
	namespace, name string
	priority        int
	catalog         *catalog.Catalog
}

// dependencySources are the CatalogSources OLM v0's resolver searches for the dependencies of
// a bundle installed into namespace from CatalogSource ownNS/own, in its order: that one
// first, then the others visible from namespace (in it or in the global catalog namespace)
// by priority, higher first, those of namespace before the global ones, then by name. The
// known ones are the CatalogSource objects (inputs, snapshot, live) and the named catalogs
// (priority 0 unless an object gives it); one whose content is not known is left out.
func (oi *olmInstall) dependencySources(ownNS, own, namespace string) []dependencySource {
	isOwnKey := func(ns, name string) bool { return ns == ownNS && name == own }
	var out []dependencySource
	ownKnown := false
	for _, cs := range oi.knownSources() {
		c := oi.r.catalogs.Of(cs.namespace, cs.name)
		if c == nil || !(oi.visible(cs.namespace, namespace) || isOwnKey(cs.namespace, cs.name)) {
			continue
		}
		ownKnown = ownKnown || isOwnKey(cs.namespace, cs.name)
		out = append(out, dependencySource{namespace: cs.namespace, name: cs.name, priority: cs.priority, catalog: c})
	}
	if c := oi.r.catalogs.Of(ownNS, own); !ownKnown && own != "" && ownNS != "" && c != nil {
		out = append(out, dependencySource{namespace: ownNS, name: own, catalog: c})
	}
	isOwn := func(s dependencySource) bool { return s.namespace == ownNS && s.name == own }
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if isOwn(a) != isOwn(b) {
			return isOwn(a)
		}
		if a.priority != b.priority {
			return a.priority > b.priority
		}
		if a.namespace != b.namespace && (a.namespace == namespace || b.namespace == namespace) {
			return a.namespace == namespace
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.namespace < b.namespace
	})
	return out
}

// sourcedCandidate is the bundle OLM v0 picks for a dependency, and the CatalogSource it is
// picked from.
type sourcedCandidate struct {
	catalog.Candidate
	namespace, name string
}

// String names the bundle, its package, channel and CatalogSource, for messages.
func (c sourcedCandidate) String() string {
	return fmt.Sprintf("%s (package %s, channel %s, CatalogSource %s/%s)", c.Bundle.Name, c.Bundle.Package, c.Channel, c.namespace, c.name)
}

// dependencyCandidate is the first bundle that matches among the CatalogSources OLM v0
// searches (dependencySources), each searched in OLM's order (catalog.Catalog.Candidate).
func (oi *olmInstall) dependencyCandidate(ownNS, own, namespace string, match func(*catalog.Bundle) bool) (sourcedCandidate, bool) {
	for _, s := range oi.dependencySources(ownNS, own, namespace) {
		if c, ok := s.catalog.Candidate(match); ok {
			return sourcedCandidate{Candidate: c, namespace: s.namespace, name: s.name}, true
		}
	}
	return sourcedCandidate{}, false
}

// offeringCandidates are the CatalogSources whose PackageManifest for the entry's package
// ODLM lists from the entry's namespace: the known ones (objects, then named catalogs) in
// that namespace or the global catalog namespace whose content has the package. Without any
// catalog, what a CatalogSource offers is unknown and every visible one is a candidate.
func (oi *olmInstall) offeringCandidates(e *entry) []*catalogSource {
	var out []*catalogSource
	for _, cs := range oi.knownSources() {
		if oi.visible(cs.namespace, e.Namespace) && oi.offers(cs, e.PackageName) {
			out = append(out, cs)
		}
	}
	return out
}

// knownSources are the CatalogSource objects (catalogSources), then the CatalogSources of
// named catalogs that no object describes (priority 0), by key.
func (oi *olmInstall) knownSources() []*catalogSource {
	out := slices.Clone(oi.catalogSources())
	seen := map[string]bool{}
	for _, cs := range out {
		seen[cs.namespace+"/"+cs.name] = true
	}
	for _, k := range oi.r.catalogs.NamedKeys() {
		if !seen[k] {
			ns, name, _ := strings.Cut(k, "/")
			out = append(out, &catalogSource{namespace: ns, name: name})
		}
	}
	return out
}

// visible says whether a CatalogSource in namespace serves namespace ns: OLM's package
// server lists for a namespace its own CatalogSources and the global ones.
func (oi *olmInstall) visible(namespace, ns string) bool {
	return namespace == ns || namespace == oi.r.opts.GlobalNamespace()
}

// offers says whether the content of cs has package pkg (true when no catalog is given).
func (oi *olmInstall) offers(cs *catalogSource, pkg string) bool {
	if oi.r.catalogs.Empty() {
		return true
	}
	c := oi.r.catalogs.Of(cs.namespace, cs.name)
	if c == nil {
		return false
	}
	_, ok := c.Package(pkg)
	return ok
}

// describeOffers says, for the error when no CatalogSource is a candidate, what each known
// one lacks.
func (oi *olmInstall) describeOffers(e *entry) string {
	var parts []string
	for _, cs := range oi.knownSources() {
		k := cs.namespace + "/" + cs.name
		switch {
		case !oi.visible(cs.namespace, e.Namespace):
			parts = append(parts, fmt.Sprintf("%s is neither in namespace %s nor in the global catalog namespace %s", k, e.Namespace, oi.r.opts.GlobalNamespace()))
		case oi.r.catalogs.Of(cs.namespace, cs.name) == nil:
			parts = append(parts, fmt.Sprintf("the content of %s is not given (--catalog %s=PATH)", k, k))
		default:
			parts = append(parts, fmt.Sprintf("%s does not have it", k))
		}
	}
	if offering := oi.r.catalogs.Offering(e.PackageName); len(offering) > 0 {
		parts = append(parts, "offered by "+strings.Join(offering, ", "))
	}
	return strings.Join(parts, "; ")
}

// preferChannel keeps, as ODLM does, the candidates whose package has the entry's channel;
// failing that, those that have the fallback channel ODLM's rule picks among all of theirs
// (channel.PickFallback); failing both, or without catalog data, all of them.
func preferChannel(candidates []*catalogSource, e *entry, channelsOf func(*catalogSource) ([]string, bool)) []*catalogSource {
	keep := func(match func([]string) bool) []*catalogSource {
		var out []*catalogSource
		for _, cs := range candidates {
			if names, known := channelsOf(cs); known && match(names) {
				out = append(out, cs)
			}
		}
		return out
	}
	if e.Channel != "" {
		if with := keep(func(names []string) bool { return slices.Contains(names, e.Channel) }); len(with) > 0 {
			return with
		}
	}
	var union []string
	for _, cs := range candidates {
		if names, known := channelsOf(cs); known {
			union = append(union, names...)
		}
	}
	if fb, ok := channel.PickFallback(union, e.FallbackChannels); ok {
		return keep(func(names []string) bool { return slices.Contains(names, channel.FindSemantic(fb)) })
	}
	return candidates
}

// channelsOf are the channel names of the entry's package in cs's content (false when not
// known).
func (oi *olmInstall) channelsOf(e *entry) func(*catalogSource) ([]string, bool) {
	return func(cs *catalogSource) ([]string, bool) {
		c := oi.r.catalogs.Of(cs.namespace, cs.name)
		if c == nil {
			return nil, false
		}
		pkg, ok := c.Package(e.PackageName)
		if !ok {
			return nil, false
		}
		return pkg.ChannelNames(), true
	}
}

// notOffered says, for "package is not in the catalog", which catalog was read when named
// catalogs are given: the entry's CatalogSource's, and which named ones offer the package.
func (oi *olmInstall) notOffered(e *entry) string {
	if len(oi.r.catalogs.Named) == 0 {
		return ""
	}
	k := e.SourceNamespace + "/" + e.SourceName
	where := " of CatalogSource " + k
	if _, named := oi.r.catalogs.Named[k]; !named {
		if oi.r.catalogs.Plain == nil {
			where = fmt.Sprintf(": the content of CatalogSource %s is not given (--catalog %s=PATH, or a plain --catalog for every CatalogSource not named)", k, k)
		} else {
			where += " (the plain --catalog)"
		}
	}
	if offering := oi.r.catalogs.Offering(e.PackageName); len(offering) > 0 {
		where += "; CatalogSource " + strings.Join(offering, ", ") + " offers it"
	}
	return where
}
