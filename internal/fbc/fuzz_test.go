package fbc_test

import (
	"strings"
	"testing"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// FuzzLoad feeds one file's bytes, as YAML or as JSON, through the whole
// path a renderer takes: decode, validate, heads, head bundles, examples,
// deprecations; and its documents, decoded as a render's inputs are,
// through AddSnapshotObject, keeping related images as catalog extract does.
// Nothing may panic; errors are fine. Run it with
//
//	go test ./internal/fbc -run '^$' -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	deprecated := strings.ReplaceAll(simpleCatalog("dep"), "stable", "beta") + deprecationsCatalog
	seeds := []string{
		simpleCatalog("foo"),
		oldShapeCatalog(csvJSON),
		oldShapeCatalog(`{"kind":"ClusterServiceVersion","metadata":{"annotations":{"alm-examples":"{}"}}}`),
		simpleCatalog("dep") + deprecationsCatalog,
		deprecated,
		pkgYAML("p", "ch") + channelYAML("p", "ch", "name: b", "name: a") + bundleYAML("p", "a", "1", "") + bundleYAML("p", "b", "2", ""),
		pkgYAML("p", "ch") + channelYAML("p", "ch", "{name: a, replaces: b}", "{name: b, skips: [a]}") + bundleYAML("p", "a", "1", "") + bundleYAML("p", "b", "2", ""),
		pkgYAML("p", "ch") + channelYAML("p", "ch", "name: a", "{name: c, skipRange: '<1.0.0'}") + bundleYAML("p", "a", "1", "") + bundleYAML("p", "c", "2", ""),
		pkgYAML("p", "ch") + channelYAML("p", "ch", "name: a") + bundleYAML("p", "a", "1", `[{"kind": "Widget",}]`),
		pkgYAML("p", "ch") + channelYAML("p", "ch", "name: a") + bundleYAML("p", "a", "1", `{"kind": "Widget"}`),
		pkgYAML("p", "ch") + channelYAML("p", "ch", "name: a") + bundleYAML("p", "a", "1", `[{"kind": "Widget"}, "oops"]`),
		pkgYAML("foo", "stable") + "---\nname: nothing\npackage: foo\n",
		"a: &a [*a]\nb: *a\n",
		"x: &x {a: 1}\ny: {<<: *x, b: 2}\n",
		"---\n---\nschema: example.com/other\n...\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
	}
	c, err := fbc.Load(writeTree(f, map[string]string{"c.yaml": deprecated}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(snapshotOf(f, c), false) // a CatalogSnapshot
	withImages, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, writeTree(f, map[string]string{"c.yaml": deprecated}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(snapshotOf(f, withImages), false) // with relatedImages
	f.Add([]byte(jsonCatalog), true)
	f.Add([]byte(`{"schema":"olm.package","name":"a"}{"schema":"olm.package","name":"a"}`), true)
	f.Add([]byte(`[1] {"schema": 3}`), true)

	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "fuzz.yaml"
		if asJSON {
			name = "fuzz.json"
		}
		addSnapshotObjects(name, data)
		b := fbc.NewBuilder(fbc.LoadOptions{})
		if err := b.AddBytes(name, data); err != nil {
			_ = err.Error()
			return
		}
		c, err := b.Catalog()
		if err != nil {
			_ = err.Error()
			return
		}
		_ = fbc.IgnoredBlobs(c)
		for _, pn := range c.PackageNames() {
			p, ok := c.Package(pn)
			if !ok {
				t.Fatalf("package %q listed but not found", pn)
			}
			for _, cn := range p.ChannelNames() {
				if _, err := p.Channels[cn].Head(); err != nil {
					_ = err.Error()
				}
				if _, err := p.HeadBundle(cn); err != nil {
					_ = err.Error()
				}
				p.DeprecationFor("olm.channel", cn)
			}
			_, _ = p.HeadBundle("no such channel")
			p.DeprecationFor("olm.package", "")
			for _, bn := range p.BundleNames() {
				if _, err := p.Bundles[bn].Examples(); err != nil {
					_ = err.Error()
				}
			}
		}
	})
}

// addSnapshotObjects adds every document of data, decoded as a render's
// inputs are, with AddSnapshotObject, keeping related images.
func addSnapshotObjects(name string, data []byte) {
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return
	}
	b := fbc.NewBuilder(fbc.LoadOptions{RelatedImages: true})
	for _, o := range objs {
		src := fbc.Source{File: name, Index: o.Source.Index, Line: o.Source.Line}
		if err := b.AddSnapshotObject(src, o.Map, o.Source.LineOf); err != nil {
			_ = err.Error()
			return
		}
	}
	if _, err := b.Catalog(); err != nil {
		_ = err.Error()
	}
}
