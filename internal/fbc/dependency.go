package fbc

import (
	"slices"

	"github.com/blang/semver/v4"
)

// Candidate is the bundle OLM v0 would install into a namespace to satisfy a dependency from
// one catalog, and the channel it would subscribe to.
type Candidate struct {
	Bundle  *Bundle
	Channel string
}

// Satisfies says whether b is of the required package at a version in its range (any
// version without one; none when the range does not parse, as OLM cannot read it either).
func (b *Bundle) Satisfies(req PackageRequirement) bool {
	if b.Package != req.PackageName {
		return false
	}
	if req.VersionRange == "" {
		return true
	}
	r, err := semver.ParseRange(req.VersionRange)
	if err != nil {
		return false
	}
	v, err := semver.ParseTolerant(b.Version)
	return err == nil && r(v)
}

// firstIn walks the packages' default channels, then their other channels, each from its
// head down, and returns the first bundle that matches.
func firstIn(pkgs []*Package, match func(*Bundle) bool) (Candidate, bool) {
	type channel struct {
		pkg  *Package
		name string
	}
	var defaults, others []channel
	for _, p := range pkgs {
		for _, name := range p.ChannelNames() {
			if name == p.DefaultChannel {
				defaults = append(defaults, channel{p, name})
			} else {
				others = append(others, channel{p, name})
			}
		}
	}
	for _, ch := range append(defaults, others...) {
		order, err := ch.pkg.Channels[ch.name].Order()
		if err != nil {
			continue
		}
		for _, e := range order {
			b := ch.pkg.Bundles[e.Name]
			if b == nil || b.DeprecatedProperty() || !match(b) {
				continue
			}
			return Candidate{Bundle: b, Channel: ch.name}, true
		}
	}
	return Candidate{}, false
}

// DeprecatedProperty says whether b carries the olm.deprecated property: OLM's resolver never
// picks such a bundle, for an update or a dependency.
func (b *Bundle) DeprecatedProperty() bool {
	return slices.ContainsFunc(b.Properties, func(p Property) bool { return p.Type == "olm.deprecated" })
}
