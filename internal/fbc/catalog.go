package fbc

import (
	"errors"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
)

// Schema names of the blobs this package understands.
const (
	schemaPackage      = "olm.package"
	schemaChannel      = "olm.channel"
	schemaBundle       = "olm.bundle"
	schemaDeprecations = "olm.deprecations"
)

// Catalog is a decoded, validated file-based catalog. It is not modified
// after Builder.Catalog returns it, so concurrent readers are safe.
type Catalog struct {
	packages map[string]*Package
	ignored  map[string]int
	// contentless are the documents of blanks, comments or directives only (opm refuses them)
	contentless []Source
	refusals    refusals
}

// Package is one operator package with its channels and bundles.
type Package struct {
	Name           string
	DefaultChannel string
	Description    string
	// Source is where the olm.package blob was found.
	Source       Source
	Channels     map[string]*Channel
	Bundles      map[string]*Bundle
	Deprecations []Deprecation
}

// LoadOptions tunes Load and the Builder.
type LoadOptions struct {
	// Packages, when non-empty, keeps only those packages: blobs of other
	// packages are decoded one at a time and dropped, never all held in
	// memory at once, and are not validated (so a package defined twice
	// elsewhere in the tree is no error when it is not asked for).
	Packages []string
	// RelatedImages keeps each bundle's relatedImages (Bundle.RelatedImages
	// and RelatedImagesKnown), from an FBC or a CatalogSnapshot, so that a
	// snapshot written from the catalog carries them. Rendering does not
	// need them, so they are dropped by default: they are a fifth of what a
	// loaded catalog would otherwise hold. A snapshot's are checked either way.
	RelatedImages bool
	// AllContents keeps the contents (Bundle.Contents) of every bundle that carries them, not
	// only of the channel heads: odlm-render plan checks the CRDs of each hop OLM takes.
	// Rendering installs the heads only, and older versions' CRDs make a loaded catalog of
	// the older shape many times larger, so they are dropped by default.
	AllContents bool
	// Within, when set, confines every file read to these folders: a file that resolves
	// elsewhere (a symbolic link inside a folder given, pointing out) is an error naming it.
	// The Argo CD plugin and the KRM function set it to what their caller may read.
	Within []string
}

// ExtractGCPercent is the garbage collector setting catalog extraction runs with (see
// TuneGCForExtract): a load is memory-bound, and collecting twice as often keeps its peak
// about 15% lower for about 10% more time (scripts/bench-catalog.sh).
const ExtractGCPercent = 50

// TuneGCForExtract sets ExtractGCPercent, unless the user set GOGC. Front doors that extract
// catalogs call it once.
func TuneGCForExtract() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(ExtractGCPercent)
	}
}

// Load reads files and folders (recursively). Several paths form one
// catalog. A package defined twice (two olm.package blobs with the same name,
// across paths or files) is an error naming both files.
func Load(paths ...string) (*Catalog, error) {
	return LoadWith(LoadOptions{}, paths...)
}

// LoadWith is Load with options.
func LoadWith(opts LoadOptions, paths ...string) (*Catalog, error) {
	if len(paths) == 0 {
		return nil, errors.New("catalog: no path given")
	}
	b := NewBuilder(opts)
	for _, p := range paths {
		if err := b.AddPath(p); err != nil {
			return nil, err
		}
	}
	return b.Catalog()
}

// Package returns the named package.
func (c *Catalog) Package(name string) (*Package, bool) {
	if c == nil {
		return nil, false
	}
	p, ok := c.packages[name]
	return p, ok
}

// PackageNames returns the package names, sorted.
func (c *Catalog) PackageNames() []string {
	if c == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(c.packages))
}

// IgnoredBlobs counts, by schema, the blobs of c of schemas this package does not
// interpret (they are valid FBC, so never an error).
func IgnoredBlobs(c *Catalog) map[string]int {
	if c == nil {
		return nil
	}
	return maps.Clone(c.ignored)
}

// ChannelNames returns the channel names, sorted.
func (p *Package) ChannelNames() []string {
	return slices.Sorted(maps.Keys(p.Channels))
}

// BundleNames returns the bundle names, sorted.
func (p *Package) BundleNames() []string {
	return slices.Sorted(maps.Keys(p.Bundles))
}

// BundleByCSV is the bundle whose ClusterServiceVersion is named csv (its CSVName, else its
// name, by the FBC convention), nil when none is; bundles are looked at in name order.
func (p *Package) BundleByCSV(csv string) *Bundle {
	for _, name := range p.BundleNames() {
		b := p.Bundles[name]
		if b.CSVName == csv || (b.CSVName == "" && b.Name == csv) {
			return b
		}
	}
	return nil
}

// ChannelOrDefault is the channel OLM follows for a Subscription's channel: the package's
// default channel when it is empty (a Subscription may leave spec.channel out).
func (p *Package) ChannelOrDefault(channel string) string {
	if channel == "" {
		return p.DefaultChannel
	}
	return channel
}

// HeadBundle returns the bundle at the head of the channel; an empty channel is the
// package's default channel. The error names the package, the channel and the file when the
// channel, its head or the head's bundle is missing.
func (p *Package) HeadBundle(channel string) (*Bundle, error) {
	if channel == "" {
		if p.DefaultChannel == "" {
			return nil, errf(p.Source, p.Name, "", "", "the channel is empty and the package has no defaultChannel")
		}
		channel = p.DefaultChannel
	}
	ch, ok := p.Channels[channel]
	if !ok {
		return nil, errf(p.Source, p.Name, channel, "", "channel not found (channels: %s)", joinOrNone(p.ChannelNames()))
	}
	head, err := ch.Head()
	if err != nil {
		return nil, err
	}
	b, ok := p.Bundles[head]
	if !ok {
		return nil, errf(ch.Source, p.Name, channel, head, "the channel head has no olm.bundle blob")
	}
	return b, nil
}

func joinOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// heads are the names of the bundles that head a channel.
func (p *Package) heads() map[string]bool {
	heads := map[string]bool{}
	for _, ch := range p.Channels {
		if h, err := ch.Head(); err == nil {
			heads[h] = true
		}
	}
	return heads
}

// HeadsWithoutContents returns the channel heads of c whose contents (CRDs, install strategy)
// are unknown, by package and bundle name: the bundles whose images a pull would read.
func HeadsWithoutContents(c *Catalog) []*Bundle {
	var out []*Bundle
	for _, pn := range c.PackageNames() {
		p := c.packages[pn]
		heads := p.heads()
		for _, bn := range p.BundleNames() {
			if b := p.Bundles[bn]; heads[bn] && b.Contents == nil {
				out = append(out, b)
			}
		}
	}
	return out
}
