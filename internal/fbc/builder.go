package fbc

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// Builder assembles a Catalog from blobs fed one at a time, from files
// (AddPath, AddFile, AddBytes) or already decoded (AddBlob, for callers such
// as the KRM function that find FBC blobs among their items).
//
// A Builder is not safe for concurrent use. After an error it holds whatever
// was added before the faulty blob; callers normally give up on it.
type Builder struct {
	dec      decoder
	packages map[string]*Package
	defined  map[string]bool   // packages with an olm.package blob
	deprSeen map[string]Source // packages with an olm.deprecations blob
	ignored  map[string]int
	// contentless are the documents of blanks, comments or directives only
	contentless []Source
	// Duplicates do not stop the loading: they are collected and reported
	// together by Catalog, so that one run shows every clash (loading two
	// catalogs that share packages names each shared package once).
	dupErrs     []error
	dupPackages map[string]bool
	done        bool
	stats       stats
	strs        map[string]string // interned strings, see internBundle
	allContents bool              // LoadOptions.AllContents
	within      []string          // LoadOptions.Within
}

// confined refuses a file that resolves outside LoadOptions.Within.
func (b *Builder) confined(path string) error {
	if len(b.within) == 0 || fileread.Inside(path, b.within...) {
		return nil
	}
	return &fileread.OutsideError{What: "catalog file", Path: path, Roots: b.within}
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts LoadOptions) *Builder {
	b := &Builder{
		dec:         decoder{relatedImages: opts.RelatedImages},
		allContents: opts.AllContents,
		within:      opts.Within,
		packages:    map[string]*Package{},
		defined:     map[string]bool{},
		deprSeen:    map[string]Source{},
		ignored:     map[string]int{},

		dupPackages: map[string]bool{},
	}
	if len(opts.Packages) > 0 {
		b.dec.keep = make(map[string]bool, len(opts.Packages))
		for _, p := range opts.Packages {
			b.dec.keep[p] = true
		}
	}
	return b
}

var errFinished = errors.New("catalog: Builder.Catalog was already called")

// AddPath adds a catalog file, or every .yaml, .yml and .json file under a
// folder, recursively, in lexical order, honouring .indexignore files. A
// file may hold FBC blobs or a CatalogSnapshot (told apart by its kind).
// The files of a folder are decoded by one pipeline (see AddReader).
func (b *Builder) AddPath(path string) error {
	if b.done {
		return errFinished
	}
	fi, err := os.Stat(path)
	if err != nil {
		return &Error{Source: fileSource(path), Err: err}
	}
	if fi.IsDir() {
		if err := b.confined(path); err != nil {
			return err
		}
		p := b.newPipeline()
		return p.finish(b.addTree(path, p))
	}
	return b.AddFile(path)
}

// AddFile adds the blobs of one file; its extension (.yaml, .yml, .json)
// chooses the decoder.
func (b *Builder) AddFile(path string) error {
	if b.done {
		return errFinished
	}
	if formatOf(path) == "" {
		return errNotCatalogFile(path)
	}
	if err := b.confined(path); err != nil {
		return err
	}
	p := b.newPipeline()
	return p.finish(addFile(path, p))
}

// AddBytes adds the blobs of an in-memory file; name is used in errors and
// its extension chooses the decoder.
func (b *Builder) AddBytes(name string, data []byte) error {
	if b.done {
		return errFinished
	}
	return b.AddReader(name, bytes.NewReader(data))
}

// AddBlob adds one decoded blob, or a decoded CatalogSnapshot (see also
// AddSnapshotObject, which can point errors at a package). A blob that
// repeats a package, channel, bundle or deprecations blob is not an error
// here: Catalog reports all of them. Values may be map[string]any or
// map[any]any, []any, strings, booleans, json.Number or Go numbers.
func (b *Builder) AddBlob(source Source, blob map[string]any) error {
	if b.done {
		return errFinished
	}
	if blob == nil {
		return &Error{Source: source, Err: errors.New("empty blob")}
	}
	return b.add(source, blob)
}

// item is one decoded blob, ready to be inserted into a Builder, or the
// reason why nothing is kept. Items are produced by decodeBlob (a pure
// function of the blob and the package filter, so it may run on any
// goroutine) and consumed, in document order, by insert.
type item struct {
	kind itemKind
	src  Source
	// pkg is the package the blob belongs to; for itemIgnored, the schema.
	pkg            string
	defaultChannel string
	description    string
	channel        *Channel
	bundle         *Bundle
	deprecations   []Deprecation
}

type itemKind uint8

const (
	itemSkipped      itemKind = iota // a blob of a package that is not kept
	itemIgnored                      // a blob of a schema this package does not interpret
	itemPackage                      // an olm.package blob
	itemChannel                      // an olm.channel blob
	itemBundle                       // an olm.bundle blob
	itemDeprecations                 // an olm.deprecations blob
	itemContentless                  // a document of blanks, comments or directives only
)

// decoder turns documents and blobs into items (decode.go). It only reads its filter and
// options, so that the pipeline's workers may share it.
type decoder struct {
	keep          map[string]bool // nil keeps every package
	relatedImages bool
}

func (d *decoder) keeps(pkg string) bool { return d.keep == nil || d.keep[pkg] }

// add decodes and inserts one blob.
func (b *Builder) add(src Source, blob map[string]any) error {
	items, err := b.dec.decodeBlob(src, blob)
	if err != nil {
		return err
	}
	b.insertAll(items)
	return nil
}

// insertAll inserts decoded items, in order.
func (b *Builder) insertAll(items []item) {
	for _, it := range items {
		b.insert(it)
	}
}

// decodeBlob turns one blob into items. It only reads the filter, so workers
// may call it concurrently. A CatalogSnapshot gives one item per blob it
// holds.
func (d *decoder) decodeBlob(src Source, blob map[string]any) ([]item, error) {
	v := blob["schema"]
	if v == nil {
		if isSnapshot(blob) {
			return d.decodeSnapshotObject(src, blob, packageSources(src, nil))
		}
		return nil, &Error{Source: src, Err: errors.New(`blob has no "schema"`)}
	}
	schema, err := toString(v, `field "schema"`)
	if err != nil {
		return nil, &Error{Source: src, Err: err}
	}
	if schema == "" {
		return nil, &Error{Source: src, Err: errors.New(`blob has an empty "schema"`)}
	}
	if schema == schemaPackage {
		name, err := reqString(blob, "name")
		if err != nil {
			return nil, &Error{Source: src, Err: fmt.Errorf("olm.package: %w", err)}
		}
		if !d.keeps(name) {
			return []item{{kind: itemSkipped, src: src, pkg: name}}, nil
		}
		it, err := decodePackage(src, name, blob)
		return []item{it}, err
	}
	switch schema {
	case schemaChannel, schemaBundle, schemaDeprecations:
	default:
		return []item{{kind: itemIgnored, src: src, pkg: schema}}, nil
	}
	pkgName, err := reqString(blob, "package")
	if err != nil {
		return nil, &Error{Source: src, Err: fmt.Errorf("%s: %w", schema, err)}
	}
	if !d.keeps(pkgName) {
		return []item{{kind: itemSkipped, src: src, pkg: pkgName}}, nil
	}
	it := item{src: src, pkg: pkgName}
	switch schema {
	case schemaChannel:
		it.kind = itemChannel
		it.channel, err = decodeChannel(src, pkgName, blob)
	case schemaBundle:
		it.kind = itemBundle
		it.bundle, err = decodeBundle(src, pkgName, blob, d.relatedImages)
	case schemaDeprecations:
		it.kind = itemDeprecations
		it.deprecations, err = decodeDeprecations(src, pkgName, blob)
	}
	if err != nil {
		return nil, err
	}
	return []item{it}, nil
}

func decodePackage(src Source, name string, blob map[string]any) (item, error) {
	var r packageRecord
	if err := decodeRecord(blob, &r); err != nil {
		return item{}, &Error{Source: src, Package: name, Err: fmt.Errorf("olm.package: %w", err)}
	}
	return item{kind: itemPackage, src: src, pkg: name, defaultChannel: r.DefaultChannel, description: r.Description}, nil
}

// insert adds a decoded item. Clashes are recorded, not returned: Catalog
// reports all of them.
func (b *Builder) insert(it item) {
	switch it.kind {
	case itemSkipped:
		return
	case itemIgnored:
		b.ignored[it.pkg]++
		return
	case itemContentless:
		b.contentless = append(b.contentless, it.src)
		return
	case itemPackage:
		b.addPackage(it)
		return
	}
	pkgName := it.pkg
	p := b.pkg(pkgName)
	src := it.src
	switch it.kind {
	case itemChannel:
		ch := it.channel
		ch.Package = p.Name
		if prev, dup := p.Channels[ch.Name]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName, Channel: ch.Name,
				Err: fmt.Errorf("olm.channel %w: first at %s", ErrDuplicate, prev.Source)})
			return
		}
		p.Channels[ch.Name] = ch
	case itemBundle:
		bu := it.bundle
		b.internBundle(bu, p.Name)
		if prev, dup := p.Bundles[bu.Name]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName, Bundle: bu.Name,
				Err: fmt.Errorf("olm.bundle %w: first at %s", ErrDuplicate, prev.Source)})
			return
		}
		p.Bundles[bu.Name] = bu
	case itemDeprecations:
		if prev, dup := b.deprSeen[pkgName]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName,
				Err: fmt.Errorf("olm.deprecations %w: first at %s", ErrDuplicate, prev)})
			return
		}
		b.deprSeen[pkgName] = src
		p.Deprecations = it.deprecations
	}
}

// internBundle makes the strings bundles repeat (API groups, versions and
// kinds, install mode types, the package name) share one copy: a decoder
// gives each its own, and a big catalog has tens of thousands of them.
func (b *Builder) internBundle(bu *Bundle, pkg string) {
	if b.strs == nil {
		b.strs = map[string]string{}
	}
	in := func(s string) string {
		if v, ok := b.strs[s]; ok {
			return v
		}
		b.strs[s] = s
		return s
	}
	bu.Package = pkg
	for _, gs := range [][]GVK{bu.ProvidedGVKs, bu.RequiredGVKs} {
		for i := range gs {
			gs[i] = GVK{Group: in(gs[i].Group), Version: in(gs[i].Version), Kind: in(gs[i].Kind)}
		}
	}
	for i := range bu.InstallModes {
		bu.InstallModes[i].Type = v1alpha1.InstallModeType(in(string(bu.InstallModes[i].Type)))
	}
}

func (b *Builder) addPackage(it item) {
	name := it.pkg
	p := b.pkg(name)
	if b.defined[name] {
		b.duplicate(name, &Error{Source: it.src, Package: name,
			Err: fmt.Errorf("olm.package %w: first at %s", ErrDuplicate, p.Source)})
		b.dupPackages[name] = true
		return
	}
	b.defined[name] = true
	p.Source, p.DefaultChannel, p.Description = it.src, it.defaultChannel, it.description
}

// duplicate records a clash; once a package is defined twice, the clashes
// of its channels and bundles are noise and are not recorded.
func (b *Builder) duplicate(pkg string, err error) {
	if !b.dupPackages[pkg] {
		b.dupErrs = append(b.dupErrs, err)
	}
}

// pkg returns the package, creating it: channels and bundles may come
// before their olm.package blob (any file order is valid).
func (b *Builder) pkg(name string) *Package {
	p, ok := b.packages[name]
	if !ok {
		p = &Package{Name: name, Channels: map[string]*Channel{}, Bundles: map[string]*Bundle{}}
		b.packages[name] = p
	}
	return p
}

// Catalog checks the whole and returns the catalog: nothing is defined
// twice, every channel, bundle or
// deprecation belongs to a package that has an olm.package blob, the default
// channel exists, every channel entry has a bundle and every deprecated
// channel or bundle exists. All problems are reported, joined. Heads are not
// checked here: one bad channel should not hide the rest of a catalog, and
// Channel.Head reports it when that channel is used.
func (b *Builder) Catalog() (*Catalog, error) {
	if b.done {
		return nil, errFinished
	}
	b.done = true
	b.strs = nil
	errs := b.dupErrs
	for _, name := range slices.Sorted(maps.Keys(b.packages)) {
		p := b.packages[name]
		if b.dupPackages[name] {
			continue // its contents are a mix of two definitions
		}
		if !b.defined[name] {
			errs = append(errs, &Error{Source: b.firstSource(p), Package: name,
				Err: errors.New("no olm.package blob defines this package")})
			continue
		}
		errs = append(errs, validatePackage(p)...)
		keepContents(p, b.allContents)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Catalog{packages: b.packages, ignored: b.ignored, contentless: b.contentless}, nil
}

// keepContents drops the contents of every bundle that heads no channel, unless all: OLM
// installs the heads once converged, and the CRDs of older versions only made catalogs of the
// older shape (and their snapshots) many times larger.
func keepContents(p *Package, all bool) {
	heads := p.heads()
	for name, bu := range p.Bundles {
		switch {
		case !heads[name] && !all:
			bu.Contents = nil
		case bu.Contents != nil:
			// kept: unpacked, in the form a snapshot writes and reads (stored CRDs are valid
			// JSON, compacted when read, so this cannot fail; if it did, the bundle's
			// contents would be unknown rather than wrong)
			if bu.Contents.canonicalize() != nil {
				bu.Contents = nil
			}
		}
	}
}

// firstSource picks a blob of an undefined package to point the user at.
func (b *Builder) firstSource(p *Package) Source {
	if len(p.Channels) > 0 {
		return p.Channels[slices.Min(slices.Collect(maps.Keys(p.Channels)))].Source
	}
	if len(p.Bundles) > 0 {
		return p.Bundles[slices.Min(slices.Collect(maps.Keys(p.Bundles)))].Source
	}
	return b.deprSeen[p.Name]
}

func validatePackage(p *Package) []error {
	var errs []error
	if p.DefaultChannel != "" {
		if _, ok := p.Channels[p.DefaultChannel]; !ok {
			errs = append(errs, errf(p.Source, p.Name, "", "",
				"defaultChannel %q is not a channel of the package (channels: %s)", p.DefaultChannel, joinOrNone(p.ChannelNames())))
		}
	}
	for _, cn := range p.ChannelNames() {
		ch := p.Channels[cn]
		var missing []string
		for _, e := range ch.Entries {
			if _, ok := p.Bundles[e.Name]; !ok {
				missing = append(missing, e.Name)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, errf(ch.Source, p.Name, cn, "", "entries without an olm.bundle blob: %s", joinOrNone(missing)))
		}
	}
	for _, d := range p.Deprecations {
		var ok bool
		switch d.Reference.Schema {
		case schemaChannel:
			_, ok = p.Channels[d.Reference.Name]
		case schemaBundle:
			_, ok = p.Bundles[d.Reference.Name]
		default:
			ok = true
		}
		if !ok {
			errs = append(errs, errf(d.Source, p.Name, "", "", "olm.deprecations: %s %q does not exist", d.Reference.Schema, d.Reference.Name))
		}
	}
	return errs
}
