package olmresolve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// The FBC blobs FromCatalog writes: the fields of operator-registry's declcfg schemas that
// resolution reads.
type (
	fbcPackage struct {
		Schema         string `json:"schema"`
		Name           string `json:"name"`
		DefaultChannel string `json:"defaultChannel,omitempty"`
	}
	fbcChannel struct {
		Schema  string                 `json:"schema"`
		Package string                 `json:"package"`
		Name    string                 `json:"name"`
		Entries []catalog.ChannelEntry `json:"entries"`
	}
	fbcBundle struct {
		Schema     string        `json:"schema"`
		Package    string        `json:"package"`
		Name       string        `json:"name"`
		Image      string        `json:"image"`
		Properties []fbcProperty `json:"properties"`
	}
	fbcProperty struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
)

// FromCatalog writes the packages of c (all when none is named) as a file-based catalog:
// each package, its channels with their entries (replaces, skips, skipRange) and its
// bundles with the properties OLM's resolver reads (olm.package, olm.gvk, olm.gvk.required,
// olm.package.required, and every other property the catalog kept, such as olm.constraint
// and olm.deprecated). Catalogs in every form pkg/catalog reads (FBC, CatalogSnapshots, FBC
// blobs among the inputs) are resolved through it. Output is deterministic.
func FromCatalog(c *catalog.Catalog, packages ...string) (fs.FS, error) {
	if len(packages) == 0 {
		packages = c.PackageNames()
	}
	var pkgs []*catalog.Package
	for _, name := range packages {
		pkg, ok := c.Package(name)
		if !ok {
			return nil, fmt.Errorf("package %s is not in the catalog", name)
		}
		pkgs = append(pkgs, pkg)
	}
	return FromPackages(pkgs...)
}

// FromPackages is FromCatalog of the given packages, in their order.
func FromPackages(pkgs ...*catalog.Package) (fs.FS, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for _, pkg := range pkgs {
		blobs := []any{fbcPackage{Schema: "olm.package", Name: pkg.Name, DefaultChannel: pkg.DefaultChannel}}
		for _, chName := range pkg.ChannelNames() {
			ch := pkg.Channels[chName]
			blobs = append(blobs, fbcChannel{Schema: "olm.channel", Package: pkg.Name, Name: ch.Name, Entries: ch.Entries})
		}
		for _, bName := range pkg.BundleNames() {
			blobs = append(blobs, bundleBlob(pkg.Bundles[bName]))
		}
		for _, b := range blobs {
			if err := enc.Encode(b); err != nil {
				return nil, fmt.Errorf("package %s: %w", pkg.Name, err)
			}
		}
	}
	return fstest.MapFS{"catalog.json": {Data: out.Bytes(), Mode: 0o644}}, nil
}

// bundleBlob is b's olm.bundle blob.
func bundleBlob(b *catalog.Bundle) fbcBundle {
	props := []fbcProperty{{Type: "olm.package", Value: map[string]string{"packageName": b.Package, "version": b.Version}}}
	for _, g := range b.ProvidedGVKs {
		props = append(props, fbcProperty{Type: "olm.gvk", Value: g})
	}
	for _, g := range b.RequiredGVKs {
		props = append(props, fbcProperty{Type: "olm.gvk.required", Value: g})
	}
	for _, r := range b.RequiredPackages {
		props = append(props, fbcProperty{Type: "olm.package.required", Value: r})
	}
	for _, p := range slices.Clone(b.Properties) {
		props = append(props, fbcProperty{Type: p.Type, Value: p.Value})
	}
	return fbcBundle{Schema: "olm.bundle", Package: b.Package, Name: b.Name, Image: b.Image, Properties: props}
}

// Missing lists the requirements of bundle b (olm.package.required, olm.gvk.required) that no
// package of c offers, each as "package P RANGE" or "API GROUP/VERSION KIND": why OLM cannot
// resolve a namespace that needs b from c, said the same way every time (OLM's own conflict
// text varies from run to run). olm.constraint properties are not read.
func Missing(b *catalog.Bundle, c *catalog.Catalog) []string {
	if c == nil {
		c = &catalog.Catalog{} // no catalog: nothing is offered
	}
	var missing []string
	for _, r := range b.RequiredPackages {
		if _, ok := c.Package(r.PackageName); !ok {
			missing = append(missing, strings.TrimSpace(fmt.Sprintf("package %s %s", r.PackageName, r.VersionRange)))
		}
	}
	for _, g := range b.RequiredGVKs {
		if !provides(c, g) {
			missing = append(missing, fmt.Sprintf("API %s/%s %s", g.Group, g.Version, g.Kind))
		}
	}
	return missing
}

// Unoffered is the sentence plan and mirror say of a bundle whose requirements no package of
// c offers (Missing): "B requires R1 and R2, which no catalog given offers"; "" when none is
// missing.
func Unoffered(b *catalog.Bundle, c *catalog.Catalog) string {
	missing := Missing(b, c)
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%s requires %s, which no catalog given offers", b.Name, strings.Join(missing, " and "))
}

// provides says whether a bundle of c provides g.
func provides(c *catalog.Catalog, g catalog.GVK) bool {
	for _, name := range c.PackageNames() {
		pkg, _ := c.Package(name)
		for _, b := range pkg.Bundles {
			if b != nil && b.Provides(g) {
				return true
			}
		}
	}
	return false
}

// ServePackages serves the packages as one CatalogSource key ("namespace/name", also OLM's
// global catalog namespace): FromPackages, then ServeAs.
func ServePackages(ctx context.Context, key string, pkgs ...*catalog.Package) (*Resolver, error) {
	fbc, err := FromPackages(pkgs...)
	if err != nil {
		return nil, err
	}
	ns, _, _ := strings.Cut(key, "/")
	return ServeAs(ctx, fbc, []string{key}, ns)
}

// SourcesOf are the CatalogSources a cluster serves, from the catalogs a render was given:
// each named catalog as its own CatalogSource, and the plain catalog as each of plainKeys
// ("namespace/name": the CatalogSources no catalog is named after); priorities are the
// CatalogSources' spec.priority by key (0 when absent).
func SourcesOf(set catalog.Set, plainKeys []string, priorities map[string]int) ([]Source, error) {
	var out []Source
	written := map[*catalog.Catalog]fs.FS{} // the plain catalog is written once for all its keys
	add := func(key string, c *catalog.Catalog) error {
		ns, name, ok := strings.Cut(key, "/")
		if !ok {
			return fmt.Errorf("catalog source %q: want NAMESPACE/NAME", key)
		}
		fbc, done := written[c]
		if !done {
			var err error
			if fbc, err = FromCatalog(c); err != nil {
				return fmt.Errorf("catalog source %s: %w", key, err)
			}
			written[c] = fbc
		}
		out = append(out, Source{Namespace: ns, Name: name, Priority: priorities[key], FBC: fbc})
		return nil
	}
	for _, key := range set.NamedKeys() {
		if err := add(key, set.Named[key]); err != nil {
			return nil, err
		}
	}
	if set.Plain != nil {
		for _, key := range plainKeys {
			if _, named := set.Named[key]; named {
				continue
			}
			if err := add(key, set.Plain); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
