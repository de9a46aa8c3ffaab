// Package mirror owns what a disconnected cluster needs copied for a render, and nothing
// more: the images of the catalogs the render's Subscriptions use, of the bundles they
// install, and of those bundles' relatedImages (the images the operators and their operands
// run), and of the operators OLM v0 adds to them as dependencies (asked of OLM's own resolver,
// Dependencies); an oc-mirror v2 ImageSetConfiguration that copies exactly those bundles; and the
// ImageDigestMirrorSet and ImageTagMirrorSet that send a cluster's pulls to the mirror.
package mirror

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/distribution/reference"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Need says why an image is listed: which operator's install needs it and as what.
type Need struct {
	// Operator is the Subscription's "namespace/name"
	Operator string `json:"operator"`
	// Bundle is the bundle installed ("" for a catalog image)
	Bundle string `json:"bundle,omitempty"`
	// As is what the image is to the install: "catalog", "bundle", "related <name>", or
	// "container <deployment>/<container>" (a bundle without relatedImages)
	As string `json:"as"`
}

// Image is one image to mirror and what needs it.
type Image struct {
	Image string `json:"image"`
	Needs []Need `json:"needs"`
}

// Package is one installed package of a catalog, at exactly the installed version.
type Package struct {
	Name, Channel, Version, Bundle string
	// MinVersion is the lowest version of the bundles OLM installs on the way to Version
	// (from a startingCSV behind it, or across the updates from an installed CSV); "" when
	// OLM installs Version only
	MinVersion string
	// DefaultChannel is the package's default channel in the catalog ("" when not known)
	DefaultChannel string
}

// Catalog is a catalog image and the packages installed from it.
type Catalog struct {
	Image    string
	Packages []Package
}

// Operator sums up one install: its bundle, the images it needs, and what mirroring its
// whole channel would copy instead.
type Operator struct {
	Operator, Bundle string
	// DependencyOf names the installs OLM adds this one for ("" for an install the render
	// asks for): Dependencies.
	DependencyOf string
	// OnTheWay are the bundles OLM installs before Bundle, in order: the startingCSV and each
	// update after it, or the updates from the installed CSV (onTheWay)
	OnTheWay []string
	// AlsoInRange counts the bundles of the channel OLM does not install on its way whose
	// versions lie in the ImageSetConfiguration's range, so that oc-mirror copies them too
	AlsoInRange        int
	Images             int
	ChannelImages      int
	ChannelImagesKnown bool
}

// Warning is something a user must know about the list, anchored where the render anchors
// the install (its registry entry).
type Warning struct {
	About *manifest.Object
	Field string
	Msg   string
}

// Plan is what to mirror for a render.
type Plan struct {
	Images   []Image   // sorted by image, each once
	Catalogs []Catalog // sorted by image
	// Additional are images that come from outside any known catalog image (so oc-mirror's
	// catalog filtering does not copy them): the installs whose CatalogSource image is not
	// known, and the container images of bundles without relatedImages
	Additional []string
	Operators  []Operator
	// ChannelTotal is how many distinct images mirroring each installed package's whole
	// channel would copy (bundles and their relatedImages, plus the catalog images)
	ChannelTotal int
	Warnings     []Warning
	// Errors are images that do not parse as image references (go-containerregistry's
	// parser): a catalog's string must not become a line a mirroring tool reads as an option
	// or a path. A plan with errors is not written.
	Errors []Warning
}

// New plans the mirror of what installs installs, and of the dependencies OLM adds to them
// (Dependencies). A bundle the catalog does not know, or whose relatedImages the catalog does
// not list, is a warning; for the latter the images of its Deployments' containers are listed
// instead when its contents are known. Each install's package is read in the catalog of its
// CatalogSource (catalog.Set.OfKey).
func New(installs []render.Install, cats catalog.Set, deps ...Dependency) Plan {
	b := &builder{images: map[string][]Need{}, catalogs: map[string]map[string]Package{}, additional: map[string]bool{}, channel: map[string]bool{}, refused: map[string]bool{}}
	for _, in := range installs {
		b.add(in, cats.OfKey(in.CatalogSource), "")
	}
	for _, d := range deps {
		b.add(d.Install, cats.OfKey(d.CatalogSource), d.Of)
	}
	return b.plan()
}

type builder struct {
	images     map[string][]Need
	catalogs   map[string]map[string]Package
	additional map[string]bool
	channel    map[string]bool
	operators  []Operator
	warnings   []Warning
	errors     []Warning
	refused    map[string]bool
}

func (b *builder) need(image string, n Need) {
	if image == "" {
		return
	}
	if err := checkReference(image); err != nil {
		// a line of images.txt a mirroring script hands to its tool, a source of the mirror
		// sets: only an image reference may become one
		if !b.refused[image] {
			b.refused[image] = true
			what := "the catalog image of " + n.Operator
			if n.Bundle != "" {
				what = fmt.Sprintf("bundle %s (%s)", n.Bundle, n.As)
			}
			b.errors = append(b.errors, Warning{Msg: fmt.Sprintf("%s names %q, which is not an image reference (%v): nothing is written", what, image, err)})
		}
		return
	}
	if !slices.Contains(b.images[image], n) {
		b.images[image] = append(b.images[image], n)
	}
}

func (b *builder) warn(in render.Install, format string, args ...any) {
	b.warnings = append(b.warnings, Warning{About: in.About, Field: in.Field, Msg: fmt.Sprintf(format, args...)})
}

// add lists what one install needs.
func (b *builder) add(in render.Install, cat *catalog.Catalog, dependencyOf string) {
	op := in.Namespace + "/" + in.Name
	if in.Bundle == nil {
		b.warn(in, "Subscription %s: the catalog does not say which bundle of package %s it installs, so its images are not listed", op, in.Package)
		return
	}
	count := map[string]bool{}
	images := &installImages{b: b, op: op, bundle: in.Bundle, outside: in.CatalogImage == "", count: count}
	way := b.onTheWay(in, cat)
	if in.CatalogImage != "" {
		images.need(in.CatalogImage, "catalog")
		b.addPackage(in, cat, way)
	} else {
		b.warn(in, "Subscription %s: CatalogSource %s is not among the inputs or snapshots, so its image is not known: the bundle's images are listed as additional images, and the catalog image must be mirrored by hand", op, in.CatalogSource)
	}
	o := Operator{Operator: op, Bundle: in.Bundle.Name, DependencyOf: dependencyOf}
	for _, bundle := range append(way, in.Bundle) {
		images.bundle = bundle
		images.ofBundle(in)
		if bundle != in.Bundle {
			o.OnTheWay = append(o.OnTheWay, bundle.Name)
		}
	}
	o.AlsoInRange = alsoInRange(in, cat, way)
	o.Images = len(count)
	o.ChannelImages, o.ChannelImagesKnown = b.wholeChannel(in, cat, count)
	b.operators = append(b.operators, o)
}

// ofBundle lists the images of the bundle: its own, its relatedImages, or its containers'.
func (ii *installImages) ofBundle(in render.Install) {
	ii.need(ii.bundle.Image, "bundle")
	if ii.bundle.Image != "" && !slices.ContainsFunc(ii.bundle.RelatedImages, func(ri catalog.RelatedImage) bool { return ri.Image == ii.bundle.Image }) {
		// oc-mirror copies a bundle's image only when its relatedImages list it (catalogs
		// usually do, unnamed): otherwise the ImageSetConfiguration names it itself
		ii.b.additional[ii.bundle.Image] = true
	}
	if !ii.related() {
		ii.containers(in)
	}
}

// addPackage lists an install's package under its catalog image, at its channel (the
// package's default when it gives none) and installed version, from the lowest version of
// the bundles OLM installs on the way to it (way).
func (b *builder) addPackage(in render.Install, cat *catalog.Catalog, way []*catalog.Bundle) {
	pkgs := b.catalogs[in.CatalogImage]
	if pkgs == nil {
		pkgs = map[string]Package{}
		b.catalogs[in.CatalogImage] = pkgs
	}
	def := defaultChannel(in.Package, cat)
	channel := in.Channel
	if channel == "" {
		channel = def
	}
	key := in.Package + "|" + channel
	p := Package{Name: in.Package, Channel: channel, Version: in.Bundle.Version, Bundle: in.Bundle.Name, DefaultChannel: def}
	if prev, ok := pkgs[key]; ok {
		p = prev
		p.Version = higher(p.Version, in.Bundle.Version)
		p.MinVersion = lower(p.lowest(), in.Bundle.Version)
	}
	for _, bundle := range way {
		p.MinVersion = lower(p.lowest(), bundle.Version)
	}
	if p.MinVersion == p.Version {
		p.MinVersion = ""
	}
	pkgs[key] = p
}

// lowest is the lowest version the package's channel is mirrored from.
func (p Package) lowest() string {
	if p.MinVersion != "" {
		return p.MinVersion
	}
	return p.Version
}

// lower and higher compare two versions as semver ("" and a version that does not parse
// lose to one that does).
func lower(a, b string) string {
	if compareVersions(b, a) < 0 {
		return b
	}
	return a
}

func higher(a, b string) string {
	if _, err := semver.ParseTolerant(b); err == nil && compareVersions(b, a) > 0 {
		return b
	}
	return a
}

func compareVersions(a, b string) int {
	va, errA := semver.ParseTolerant(a)
	vb, errB := semver.ParseTolerant(b)
	switch {
	case errA != nil && errB != nil:
		return strings.Compare(a, b)
	case errA != nil:
		return 1
	case errB != nil:
		return -1
	}
	return va.Compare(vb)
}

// installImages gathers the images of one install.
type installImages struct {
	b       *builder
	op      string
	bundle  *catalog.Bundle
	outside bool // no known catalog image: the bundle's images are additional images
	count   map[string]bool
}

// need lists an image of the install, as what it is to it; "" is no image.
func (ii *installImages) need(image, as string) {
	if image == "" {
		return
	}
	n := Need{Operator: ii.op, Bundle: ii.bundle.Name, As: as}
	if as == "catalog" {
		n.Bundle = ""
	} else if ii.outside {
		ii.b.additional[image] = true
	}
	ii.b.need(image, n)
	ii.count[image] = true
}

// related lists the bundle's relatedImages; false when it has none.
func (ii *installImages) related() bool {
	if len(ii.bundle.RelatedImages) == 0 {
		return false
	}
	for _, ri := range ii.bundle.RelatedImages {
		if ri.Image != ii.bundle.Image { // catalogs list the bundle among its own relatedImages, unnamed
			ii.need(ri.Image, strings.TrimSpace("related "+ri.Name))
		}
	}
	return true
}

// containers lists, for a bundle without relatedImages, the images of its Deployments'
// containers (images from outside the catalog's filtering), with a warning.
func (ii *installImages) containers(in render.Install) {
	for _, c := range containerImages(ii.bundle) {
		ii.need(c.image, "container "+c.where)
		ii.b.additional[c.image] = true
	}
	none := noRelatedImages(ii.bundle)
	if ii.bundle.Contents == nil || ii.bundle.Contents.Install == nil {
		ii.b.warn(in, "%s and its contents are not known: the images its operator and operands run are not listed (catalog extract --bundle-contents pull reads its Deployments)", none)
	} else {
		ii.b.warn(in, "%s: the images of its Deployments' containers are listed instead, and the images its operator starts for its operands are not known", none)
	}
}

// noRelatedImages says why a bundle has no relatedImages: its catalog lists none, or the
// catalog snapshot it comes from was written before snapshots kept them.
func noRelatedImages(bundle *catalog.Bundle) string {
	if bundle.RelatedImagesKnown {
		return "bundle " + bundle.Name + " lists no relatedImages"
	}
	return "bundle " + bundle.Name + ": the catalog snapshot does not keep its relatedImages (written before catalog extract kept them: extract it again)"
}

// defaultChannel is a package's default channel in the catalog ("" when not known).
func defaultChannel(pkg string, cat *catalog.Catalog) string {
	if cat == nil {
		return ""
	}
	if p, ok := cat.Package(pkg); ok {
		return p.DefaultChannel
	}
	return ""
}

// wholeChannel counts what mirroring the install's whole channel would copy (every bundle of
// the channel, its relatedImages, the catalog image, and what the install itself needs: the
// container images listed for a bundle without relatedImages), and adds it to the channel
// total.
func (b *builder) wholeChannel(in render.Install, cat *catalog.Catalog, installed map[string]bool) (int, bool) {
	if cat == nil {
		return 0, false
	}
	p, ok := cat.Package(in.Package)
	if !ok {
		return 0, false
	}
	ch, ok := p.Channels[p.ChannelOrDefault(in.Channel)]
	if !ok {
		return 0, false
	}
	images := maps.Clone(installed)
	for _, e := range ch.Entries {
		bundle, ok := p.Bundles[e.Name]
		if !ok {
			continue
		}
		images[bundle.Image] = true
		for _, ri := range bundle.RelatedImages {
			images[ri.Image] = true
		}
	}
	delete(images, "")
	for im := range images {
		b.channel[im] = true
	}
	return len(images), true
}

func (b *builder) plan() Plan {
	for image := range b.refused {
		delete(b.additional, image)
		delete(b.catalogs, image)
	}
	var p Plan
	for _, image := range slices.Sorted(maps.Keys(b.images)) {
		needs := b.images[image]
		slices.SortFunc(needs, func(x, y Need) int {
			return strings.Compare(x.Operator+"\x00"+x.Bundle+"\x00"+x.As, y.Operator+"\x00"+y.Bundle+"\x00"+y.As)
		})
		p.Images = append(p.Images, Image{Image: image, Needs: needs})
	}
	for _, image := range slices.Sorted(maps.Keys(b.catalogs)) {
		c := Catalog{Image: image}
		for _, k := range slices.Sorted(maps.Keys(b.catalogs[image])) {
			c.Packages = append(c.Packages, b.catalogs[image][k])
		}
		p.Catalogs = append(p.Catalogs, c)
	}
	delete(b.additional, "")
	p.Additional = slices.Sorted(maps.Keys(b.additional))
	p.Operators = b.operators
	p.ChannelTotal = len(b.channel)
	p.Warnings = b.warnings
	p.Errors = b.errors
	return p
}

// container is an image a Deployment of a bundle's install strategy runs.
type container struct{ image, where string }

// containerImages lists the images of the containers (and init containers) of a bundle's
// install strategy Deployments, when its contents are known.
func containerImages(b *catalog.Bundle) []container {
	if b.Contents == nil || b.Contents.Install == nil {
		return nil
	}
	var out []container
	for i, d := range b.Contents.Install.Deployments {
		spec, err := b.Contents.DeploymentSpec(i)
		if err != nil {
			continue
		}
		for _, list := range []string{"initContainers", "containers"} {
			cs, _ := manifest.Get(spec, "template", "spec", list).([]any)
			for _, c := range cs {
				image, _ := manifest.Get(c, "image").(string)
				name, _ := manifest.Get(c, "name").(string)
				if image != "" {
					out = append(out, container{image: image, where: d.Name + "/" + name})
				}
			}
		}
	}
	return out
}

// checkReference accepts an image reference by the grammar of the distribution project's
// reference package (what container tools and OpenShift's mirror sets accept: lowercase path
// components that start with a letter or digit, no empty component, no spaces) and
// go-containerregistry's parser (what mirror's own registry reads use).
func checkReference(image string) error {
	if _, err := reference.ParseNormalizedNamed(image); err != nil {
		return err
	}
	_, err := name.ParseReference(image)
	return err
}
