package catalog

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
)

// Builder assembles a Catalog from blobs fed one at a time, from files
// (AddPath, AddFile, AddBytes) or already decoded (AddBlob, for callers such
// as the KRM function that find FBC blobs among their items).
//
// A Builder is not safe for concurrent use. After an error it holds whatever
// was added before the faulty blob; callers normally give up on it.
type Builder struct {
	keep     map[string]bool // nil keeps every package
	packages map[string]*Package
	defined  map[string]bool   // packages with an olm.package blob
	deprSeen map[string]Source // packages with an olm.deprecations blob
	ignored  map[string]int
	// Duplicates do not stop the loading: they are collected and reported
	// together by Catalog, so that one run shows every clash (loading two
	// catalogs that share packages names each shared package once).
	dupErrs     []error
	dupPackages map[string]bool
	done        bool
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts LoadOptions) *Builder {
	b := &Builder{
		packages: map[string]*Package{},
		defined:  map[string]bool{},
		deprSeen: map[string]Source{},
		ignored:  map[string]int{},

		dupPackages: map[string]bool{},
	}
	if len(opts.Packages) > 0 {
		b.keep = make(map[string]bool, len(opts.Packages))
		for _, p := range opts.Packages {
			b.keep[p] = true
		}
	}
	return b
}

var errFinished = errors.New("catalog: Builder.Catalog was already called")

// AddPath adds a catalog file, or every .yaml, .yml and .json file under a
// folder, recursively, in lexical order, honouring .indexignore files.
func (b *Builder) AddPath(path string) error {
	if b.done {
		return errFinished
	}
	fi, err := os.Stat(path)
	if err != nil {
		return &Error{Source: fileSource(path), Err: err}
	}
	if fi.IsDir() {
		return b.addDir(path, nil)
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
	data, err := os.ReadFile(path)
	if err != nil {
		return &Error{Source: fileSource(path), Err: err}
	}
	return decodeBytes(path, data, b)
}

// AddBytes adds the blobs of an in-memory file; name is used in errors and
// its extension chooses the decoder.
func (b *Builder) AddBytes(name string, data []byte) error {
	if b.done {
		return errFinished
	}
	return decodeBytes(name, data, b)
}

// AddBlob adds one decoded blob. A blob that repeats a package, channel,
// bundle or deprecations blob is not an error here: Catalog reports all of
// them. Values may be map[string]any or
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

// wants implements blobSink: it lets the YAML decoder skip converting blobs
// that would be dropped anyway. Unknown schemas are counted here then.
func (b *Builder) wants(schema, pkg string) bool {
	switch schema {
	case schemaPackage, schemaChannel, schemaBundle, schemaDeprecations:
		return b.keeps(pkg)
	}
	b.ignored[schema]++
	return false
}

func (b *Builder) keeps(pkg string) bool { return b.keep == nil || b.keep[pkg] }

// add implements blobSink.
func (b *Builder) add(src Source, blob map[string]any) error {
	v := blob["schema"]
	if v == nil {
		return &Error{Source: src, Err: errors.New(`blob has no "schema"`)}
	}
	schema, err := toString(v, `field "schema"`)
	if err != nil {
		return &Error{Source: src, Err: err}
	}
	if schema == "" {
		return &Error{Source: src, Err: errors.New(`blob has an empty "schema"`)}
	}
	if schema == schemaPackage {
		name, err := reqString(blob, "name")
		if err != nil {
			return &Error{Source: src, Err: fmt.Errorf("olm.package: %w", err)}
		}
		if !b.keeps(name) {
			return nil
		}
		return b.addPackage(src, name, blob)
	}
	switch schema {
	case schemaChannel, schemaBundle, schemaDeprecations:
	default:
		b.ignored[schema]++
		return nil
	}
	pkgName, err := reqString(blob, "package")
	if err != nil {
		return &Error{Source: src, Err: fmt.Errorf("%s: %w", schema, err)}
	}
	if !b.keeps(pkgName) {
		return nil
	}
	p := b.pkg(pkgName)
	switch schema {
	case schemaChannel:
		ch, err := decodeChannel(src, pkgName, blob)
		if err != nil {
			return err
		}
		if prev, dup := p.Channels[ch.Name]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName, Channel: ch.Name,
				Err: fmt.Errorf("olm.channel %w: first at %s", ErrDuplicate, prev.Source)})
			return nil
		}
		p.Channels[ch.Name] = ch
	case schemaBundle:
		bu, err := decodeBundle(src, pkgName, blob)
		if err != nil {
			return err
		}
		if prev, dup := p.Bundles[bu.Name]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName, Bundle: bu.Name,
				Err: fmt.Errorf("olm.bundle %w: first at %s", ErrDuplicate, prev.Source)})
			return nil
		}
		p.Bundles[bu.Name] = bu
	case schemaDeprecations:
		ds, err := decodeDeprecations(src, pkgName, blob)
		if err != nil {
			return err
		}
		if prev, dup := b.deprSeen[pkgName]; dup {
			b.duplicate(pkgName, &Error{Source: src, Package: pkgName,
				Err: fmt.Errorf("olm.deprecations %w: first at %s", ErrDuplicate, prev)})
			return nil
		}
		b.deprSeen[pkgName] = src
		p.Deprecations = ds
	}
	return nil
}

func (b *Builder) addPackage(src Source, name string, blob map[string]any) error {
	p := b.pkg(name)
	if b.defined[name] {
		b.duplicate(name, &Error{Source: src, Package: name,
			Err: fmt.Errorf("olm.package %w: first at %s", ErrDuplicate, p.Source)})
		b.dupPackages[name] = true
		return nil
	}
	fail := func(err error) error {
		return &Error{Source: src, Package: name, Err: fmt.Errorf("olm.package: %w", err)}
	}
	dc, err := optString(blob, "defaultChannel")
	if err != nil {
		return fail(err)
	}
	desc, err := optString(blob, "description")
	if err != nil {
		return fail(err)
	}
	// The icon (often tens of kB of base64) is deliberately not read.
	b.defined[name] = true
	p.Source, p.DefaultChannel, p.Description = src, dc, desc
	return nil
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
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Catalog{packages: b.packages, ignored: b.ignored}, nil
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
