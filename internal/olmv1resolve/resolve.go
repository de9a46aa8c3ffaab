// Package olmv1resolve owns one question: which bundle OLM v1's operator-controller installs
// for a ClusterExtension, from the catalogs of a cluster's ClusterCatalogs, and why it refuses
// when it does. It follows operator-controller v1.11.0's CatalogResolver (internal to its
// module, so not importable: its rules are written down here, each with a link):
//
//   - Catalogs: every ClusterCatalog the extension's selector matches, by name (the API
//     server lists them so), those whose availabilityMode is Unavailable left out
//     (resolve/catalog.go#L277-L283).
//   - Candidates, in each catalog holding the package: the bundles in any of the named channels
//     (all bundles when none is named), whose version lies in the version range (Masterminds
//     semver constraints), and, when a bundle is installed and upgradeConstraintPolicy is not
//     SelfCertified, which are successors of the installed one (an entry of a named channel, of
//     any when none is named, that replaces it, skips it, or whose skipRange holds its version)
//     or the installed version itself (resolve/catalog.go#L99-L123, filter/successors.go#L40-L97).
//   - The first of them once sorted: bundles the package's olm.deprecations does not name
//     first, then by version, highest first (resolve/catalog.go#L139-L146, compare.go#L44-L73):
//     not the channel head, which OLM v0 installs.
//   - Across catalogs: a catalog whose choice is not deprecated beats those whose choice is;
//     then the highest spec.priority wins, and two at the same priority are an error
//     (resolve/catalog.go#L148-L163, #L170-L187).
//   - The bundle chosen must declare no dependency (olm.package.required, olm.gvk.required,
//     olm.constraint): resolve/validation.go, the one validation cmd/operator-controller wires.
//
// Permalinks: https://github.com/operator-framework/operator-controller/blob/v1.11.0/internal/operator-controller/
// followed by the file. The errors carry operator-controller's own text (resolutionError).
package olmv1resolve

import (
	"fmt"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"
	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Source is the link to operator-controller's code the rules follow.
const Source = "https://github.com/operator-framework/operator-controller/blob/v1.11.0/internal/operator-controller/resolve/catalog.go"

// Catalog is a ClusterCatalog: its name, spec.priority and content.
type Catalog struct {
	Name     string
	Priority int
	// Unavailable is spec.availabilityMode Unavailable: operator-controller skips the catalog.
	Unavailable bool
	Content     *catalog.Catalog
}

// Installed is the bundle a ClusterExtension has installed (status.install.bundle).
type Installed struct {
	Name, Version string
}

// Request is a ClusterExtension's spec.source.catalog, and what it has installed.
type Request struct {
	Package  string
	Channels []string
	// Version is the version range ("" for any).
	Version string
	// SelfCertified is upgradeConstraintPolicy SelfCertified: any version may follow the
	// installed one.
	SelfCertified bool
	// Installed is nil for a new install.
	Installed *Installed
}

// Result is the bundle operator-controller installs and the ClusterCatalog it comes from.
type Result struct {
	Bundle  *catalog.Bundle
	Catalog string
	// Deprecated tells that the package's olm.deprecations names the bundle.
	Deprecated bool
}

// Resolve is operator-controller's choice for req among catalogs (given in any order).
func Resolve(catalogs []Catalog, req Request) (Result, error) {
	var rng *mmsemver.Constraints
	if req.Version != "" {
		c, err := mmsemver.NewConstraint(req.Version)
		if err != nil {
			return Result{}, fmt.Errorf("desired version range %q is invalid: %w", req.Version, err)
		}
		rng = c
	}
	var installedVersion semver.Version
	if req.Installed != nil && !req.SelfCertified {
		v, err := semver.Parse(req.Installed.Version)
		if err != nil {
			return Result{}, fmt.Errorf("error walking catalogs: error finding upgrade edges: getting successorsPredicate: error parsing installed bundle version: %w", err)
		}
		installedVersion = v
	}
	sorted := slices.Clone(catalogs)
	slices.SortFunc(sorted, func(a, b Catalog) int { return strings.Compare(a.Name, b.Name) })
	var found []Result
	var priorities []int
	for _, cat := range sorted {
		if cat.Unavailable || cat.Content == nil {
			continue
		}
		pkg, ok := cat.Content.Package(req.Package)
		if !ok {
			continue
		}
		candidates := candidates(pkg, req, rng, installedVersion)
		if len(candidates) == 0 {
			continue
		}
		best := candidates[0]
		if len(found) > 0 {
			prior := found[len(found)-1].Deprecated
			if best.Deprecated && !prior {
				continue
			} else if !best.Deprecated && prior {
				found, priorities = nil, nil
			}
		}
		best.Catalog = cat.Name
		found = append(found, best)
		priorities = append(priorities, cat.Priority)
	}
	if len(found) > 1 {
		idx := make([]int, len(found))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return priorities[b] - priorities[a] })
		if priorities[idx[0]] != priorities[idx[1]] {
			found = []Result{found[idx[0]]}
		}
	}
	if len(found) != 1 {
		return Result{}, resolutionError(req, found)
	}
	if prop := dependencyProperty(found[0].Bundle); prop != "" {
		// NoDependencyValidation, the one validation operator-controller's main wires in
		return Result{}, &Error{Msg: fmt.Sprintf("validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported", found[0].Bundle.Name, found[0].Bundle.Name, prop)}
	}
	return found[0], nil
}

// dependencyProperty is the type of a property of b that declares a dependency
// (olm.package.required, olm.gvk.required, olm.constraint), "" when none does. Of several
// types, operator-controller names the first in the bundle's order, which the loaded catalog
// does not keep: this names them in that order of types.
func dependencyProperty(b *catalog.Bundle) string {
	switch {
	case len(b.RequiredPackages) > 0:
		return "olm.package.required"
	case len(b.RequiredGVKs) > 0:
		return "olm.gvk.required"
	}
	for _, p := range b.Properties {
		if p.Type == "olm.constraint" {
			return p.Type
		}
	}
	return ""
}

// candidates are the bundles of pkg req allows, best first.
func candidates(pkg *catalog.Package, req Request, rng *mmsemver.Constraints, installed semver.Version) []Result {
	var out []Result
	for _, name := range pkg.BundleNames() {
		b := pkg.Bundles[name]
		if len(req.Channels) > 0 && !inAnyChannel(pkg, req.Channels, name) {
			continue
		}
		v, err := semver.Parse(b.Version)
		if err != nil {
			continue // operator-controller cannot read its version: no predicate holds
		}
		if rng != nil && !rng.Check(mastermindsOf(v)) {
			continue
		}
		if req.Installed != nil && !req.SelfCertified && !isSuccessor(pkg, edgeChannels(pkg, req.Channels), name, *req.Installed, installed) && !v.Equals(installed) {
			continue
		}
		_, deprecated := pkg.DeprecationFor("olm.bundle", name)
		out = append(out, Result{Bundle: b, Deprecated: deprecated})
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		if a.Deprecated != b.Deprecated {
			if a.Deprecated {
				return 1
			}
			return -1
		}
		va, _ := semver.Parse(a.Bundle.Version)
		vb, _ := semver.Parse(b.Bundle.Version)
		return vb.Compare(va)
	})
	return out
}

// mastermindsOf is v as Masterminds semver reads it (as operator-controller converts it).
func mastermindsOf(v semver.Version) *mmsemver.Version {
	var pre []string
	for _, p := range v.Pre {
		pre = append(pre, p.String())
	}
	return mmsemver.New(v.Major, v.Minor, v.Patch, strings.Join(pre, "."), strings.Join(v.Build, "."))
}

// inAnyChannel tells whether an entry of one of the named channels is the bundle.
func inAnyChannel(pkg *catalog.Package, channels []string, name string) bool {
	for _, cn := range channels {
		if ch, ok := pkg.Channels[cn]; ok && slices.ContainsFunc(ch.Entries, func(e catalog.ChannelEntry) bool { return e.Name == name }) {
			return true
		}
	}
	return false
}

// edgeChannels are the channels whose entries are upgrade edges: the named ones when some are
// named, else all. (operator-controller passes the package's channels after filtering them in
// place to the named ones: resolve/catalog.go#L101-L113.)
func edgeChannels(pkg *catalog.Package, named []string) []string {
	if len(named) == 0 {
		return pkg.ChannelNames()
	}
	var out []string
	for _, cn := range pkg.ChannelNames() {
		if slices.Contains(named, cn) {
			out = append(out, cn)
		}
	}
	return out
}

// isSuccessor tells whether an entry of one of channels naming the bundle replaces the
// installed one, skips it, or has a skipRange holding its version.
func isSuccessor(pkg *catalog.Package, channels []string, name string, installed Installed, version semver.Version) bool {
	for _, cn := range channels {
		for _, e := range pkg.Channels[cn].Entries {
			if e.Name != name {
				continue
			}
			if e.Replaces == installed.Name || slices.Contains(e.Skips, installed.Name) {
				return true
			}
			if e.SkipRange != "" {
				if r, err := semver.ParseRange(e.SkipRange); err == nil && r(version) {
					return true
				}
			}
		}
	}
	return false
}

// resolutionError is operator-controller's message for a resolution that found no bundle or
// several (resolutionError.Error).
func resolutionError(req Request, found []Result) error {
	var sb strings.Builder
	if req.Installed != nil {
		fmt.Fprintf(&sb, "error upgrading from currently installed version %q: ", req.Installed.Version)
	}
	if len(found) > 1 {
		fmt.Fprintf(&sb, "found bundles for package %q ", req.Package)
	} else {
		fmt.Fprintf(&sb, "no bundles found for package %q ", req.Package)
	}
	if req.Version != "" {
		fmt.Fprintf(&sb, "matching version %q ", req.Version)
	}
	if len(req.Channels) > 0 {
		fmt.Fprintf(&sb, "in channels %v ", req.Channels)
	}
	if len(found) > 1 {
		var names []string
		for _, f := range found {
			names = append(names, f.Catalog)
		}
		slices.Sort(names)
		fmt.Fprintf(&sb, "in multiple catalogs with the same priority %v ", names)
	}
	return &Error{Msg: strings.TrimSpace(sb.String())}
}

// Error is operator-controller's refusal, in its words.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }
