package fbc

import (
	"slices"
	"strings"
	"sync"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/model"
	"github.com/operator-framework/operator-registry/alpha/property"
	"k8s.io/apimachinery/pkg/util/validation"
)

// refusals holds what OPMRefusals computes, once.
type refusals struct {
	once sync.Once
	errs []*Error
}

// OPMRefusals says why `opm serve` would refuse this catalog, nil when it would serve it. A
// CatalogSource whose catalog opm refuses serves nothing: nothing installs or updates from it,
// although this package reads it (it reads what it can, as a render must). Each reason names
// the file, document, package, channel or bundle:
//
//   - a document holding only blanks, comments or directives (opm reads it as a blob without
//     a schema);
//   - what operator-registry's conversion to its model refuses: a package name that is not a
//     DNS-1123 label, an entry listed twice in a channel, a bundle no channel lists, a
//     version that is not strict semver;
//   - what operator-registry's own model validation refuses (alpha/model, run here on the
//     catalog's packages): no default channel, a channel without entries, no single head or a
//     cycle in the replaces chain, stranded bundles, an empty skip, an invalid skipRange, two
//     bundles with one version.
//
// Of a catalog loaded with LoadOptions.Packages, only the packages kept are checked (and the
// documents). What this package does not keep is not checked: several olm.package
// properties on a bundle, release versions, relatedImages pull specs, bundles without image.
// internal/olmresolve's tests compare the answer with opm's own (its cache build).
func (c *Catalog) OPMRefusals() []*Error {
	c.refusals.once.Do(func() {
		for _, src := range c.contentless {
			c.refusals.errs = append(c.refusals.errs, errf(src, "", "", "", "a document with no schema: it holds only blanks, comments or directives"))
		}
		for _, name := range c.PackageNames() {
			c.refusals.errs = append(c.refusals.errs, opmRefusals(c.packages[name])...)
		}
	})
	return c.refusals.errs
}

// opmRefusals converts one package to operator-registry's model as opm does on start, and
// validates it with the model's own code.
func opmRefusals(p *Package) []*Error {
	var errs []*Error
	if e := validation.IsDNS1123Label(p.Name); len(e) > 0 {
		errs = append(errs, errf(p.Source, p.Name, "", "", "the package name is not a DNS-1123 label: %s", strings.Join(e, "; ")))
	}
	mp := &model.Package{Name: p.Name, Channels: map[string]*model.Channel{}}
	listed := map[string]bool{}
	for _, cn := range p.ChannelNames() {
		ch := p.Channels[cn]
		mc := &model.Channel{Package: mp, Name: cn, Bundles: map[string]*model.Bundle{}}
		for _, e := range ch.Entries {
			if _, dup := mc.Bundles[e.Name]; dup {
				errs = append(errs, errf(ch.Source, p.Name, cn, e.Name, "the entry is listed twice"))
				continue
			}
			listed[e.Name] = true
			mc.Bundles[e.Name] = modelBundle(mp, mc, e, p.Bundles[e.Name])
		}
		mp.Channels[cn] = mc
		if cn == p.DefaultChannel {
			mp.DefaultChannel = mc
		}
	}
	for _, name := range p.BundleNames() {
		b := p.Bundles[name]
		if !listed[name] {
			errs = append(errs, errf(b.Source, p.Name, "", name, "no channel lists the bundle"))
		}
		if _, err := semver.Parse(b.Version); err != nil {
			errs = append(errs, errf(b.Source, p.Name, "", name, "version %q of its olm.package property is not strict semver: %v", b.Version, err))
		}
	}
	if err := mp.Validate(); err != nil {
		for _, reason := range validationLeaves(err.Error()) {
			errs = append(errs, errf(p.Source, p.Name, "", "", "%s", reason))
		}
	}
	return errs
}

// modelBundle is a channel entry as opm's model holds it: the entry's edges, the bundle's
// image, version and package property (the fields the model's validation reads).
func modelBundle(mp *model.Package, mc *model.Channel, e ChannelEntry, b *Bundle) *model.Bundle {
	mb := &model.Bundle{Package: mp, Channel: mc, Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, Image: "unknown"}
	if b == nil {
		return mb
	}
	if b.Image != "" {
		mb.Image = b.Image
	}
	mb.Properties = []property.Property{property.MustBuildPackage(mp.Name, b.Version)}
	if v, err := semver.Parse(b.Version); err == nil {
		mb.Version = v
	}
	return mb
}

// validationLeaves flattens operator-registry's validation error tree ("invalid package
// \"p\":\n└── invalid channel \"c\":\n    └── reason") into one line per reason, each with the
// path to it ("invalid channel \"c\": reason"), the package's own level left out.
func validationLeaves(text string) []string {
	type level struct {
		depth int
		text  string
	}
	var path []level
	var out []string
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, line := range lines {
		depth, rest := treeDepth(line)
		for len(path) > 0 && path[len(path)-1].depth >= depth {
			path = path[:len(path)-1]
		}
		rest = strings.TrimSuffix(rest, ":")
		nextDepth := -1
		if i+1 < len(lines) {
			nextDepth, _ = treeDepth(lines[i+1])
		}
		if nextDepth > depth {
			path = append(path, level{depth, rest})
			continue
		}
		var parts []string
		for _, l := range path {
			if l.depth > 0 { // the package is named by the Error
				parts = append(parts, l.text)
			}
		}
		out = append(out, strings.Join(append(parts, rest), ": "))
	}
	return slices.Compact(out)
}

// treeDepth counts the tree-drawing prefixes of a line of a validation error (four runes a
// level), and returns the line without them.
func treeDepth(line string) (int, string) {
	r := []rune(line)
	depth := 0
	for len(r) >= 4 {
		switch string(r[:4]) {
		case "├── ", "└── ", "│   ", "    ":
			r = r[4:]
			depth++
			continue
		}
		break
	}
	return depth, string(r)
}
