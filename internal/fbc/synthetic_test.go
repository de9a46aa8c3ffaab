package fbc_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

func TestLoadSimple(t *testing.T) {
	dir := writeTree(t, map[string]string{"foo/catalog.yaml": simpleCatalog("foo")})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	p, ok := c.Package("foo")
	require.True(t, ok)
	assert.Equal(t, fbc.Source{File: filepath.Join(dir, "foo", "catalog.yaml"), Index: 0, Line: 2}, p.Source)

	b, err := p.HeadBundle("stable")
	require.NoError(t, err)
	assert.Equal(t, "foo.v1.2.0", b.Name)
	assert.Equal(t, 4, b.Source.Index)
	assert.Equal(t, "1.2.0", b.Version)
	assert.Equal(t, "Example", b.DisplayName)
	assert.Equal(t, []fbc.GVK{{Group: "example.com", Version: "v1", Kind: "Widget"}}, b.ProvidedGVKs)
	assert.Empty(t, b.RelatedImages, "kept only with LoadOptions.RelatedImages")
	assert.False(t, b.RelatedImagesKnown)
	withImages, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, dir)
	require.NoError(t, err)
	wp, _ := withImages.Package("foo")
	assert.Equal(t, []fbc.RelatedImage{{Name: "operator", Image: "quay.io/example/operator:1.2.0"}}, wp.Bundles["foo.v1.2.0"].RelatedImages)
	assert.True(t, wp.Bundles["foo.v1.2.0"].RelatedImagesKnown)
	assert.Equal(t, []fbc.Property{{Type: "olm.maxOpenShiftVersion", Value: "4.20"}}, b.Properties)
	assert.Equal(t, []fbc.InstallMode{{Type: "OwnNamespace", Supported: true}, {Type: "AllNamespaces"}}, b.InstallModes)

	ex, err := b.Examples()
	require.NoError(t, err)
	require.Len(t, ex, 1)
	spec := ex[0]["spec"].(map[string]any)
	// Numbers are exact: no float64 rounding, no lost trailing zero.
	assert.Equal(t, json.Number("3"), spec["size"])
	assert.Equal(t, json.Number("0.10"), spec["ratio"])
	assert.Equal(t, json.Number("12345678901234567890"), spec["big"])

	// Each call returns a fresh tree the caller may modify.
	spec["size"] = "changed"
	again, err := b.Examples()
	require.NoError(t, err)
	assert.Equal(t, json.Number("3"), again[0]["spec"].(map[string]any)["size"])
}

func TestJSONStream(t *testing.T) {
	dir := writeTree(t, map[string]string{"catalog.json": jsonCatalog})
	c, err := fbc.Load(filepath.Join(dir, "catalog.json"))
	require.NoError(t, err)
	p, ok := c.Package("js")
	require.True(t, ok)
	b, err := p.HeadBundle("stable")
	require.NoError(t, err)
	assert.Equal(t, "js.v2", b.Name)
	assert.Equal(t, fbc.Source{File: filepath.Join(dir, "catalog.json"), Index: 3, Line: 3}, b.Source)
	assert.Equal(t, 2, p.Channels["stable"].Source.Line)
	assert.Equal(t, 2, p.Bundles["js.v1"].Source.Line)
	ex, err := b.Examples()
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"kind": "J", "spec": map[string]any{"n": json.Number("1.50")}}}, ex)
	assert.Equal(t, map[string]int{"example.com.custom": 1}, fbc.IgnoredBlobs(c))
}

func TestIndexIgnore(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"catalog.yaml":       simpleCatalog("foo"),
		".indexignore":       "# scratch files and a folder\n*.tmp.yaml\nscratch/\n/root-only.json\n",
		"scratch/bad.yaml":   "this: [is not valid",
		"skip.tmp.yaml":      "schema: [broken",
		"root-only.json":     "{broken",
		"README.md":          "not a catalog file: skipped by extension",
		"sub/.indexignore":   "!keep.tmp.yaml\n",
		"sub/keep.tmp.yaml":  simpleCatalog("bar"),
		"sub/root-only.json": `{"schema":"olm.package","name":"baz"}`,
		"deep/a/b/c.yml":     simpleCatalog("qux"),
	})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"bar", "baz", "foo", "qux"}, c.PackageNames())

	// Without the ignore file the broken files are read (and fail).
	dir2 := writeTree(t, map[string]string{"catalog.yaml": simpleCatalog("foo"), "skip.tmp.yaml": "schema: [broken"})
	_, err = fbc.Load(dir2)
	require.ErrorContains(t, err, "skip.tmp.yaml")
}

func TestOldShapeBundle(t *testing.T) {
	dir := writeTree(t, map[string]string{"catalog.yaml": oldShapeCatalog(csvJSON)})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	p, _ := c.Package("old")
	b, err := p.HeadBundle("alpha")
	require.NoError(t, err)
	assert.Equal(t, "old.v0.1.0", b.Name)
	assert.Equal(t, "old.v0.1.0-csv", b.CSVName, "the CSV object names the CSV")
	assert.Equal(t, "Old Operator", b.DisplayName)
	assert.Equal(t, ">=0.0.1 <0.1.0", b.SkipRange)
	assert.Equal(t, []fbc.InstallMode{{Type: "OwnNamespace"}, {Type: "AllNamespaces", Supported: true}}, b.InstallModes)
	ex, err := b.Examples()
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"apiVersion": "old.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g1"}}}, ex)
}

func TestHeads(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		head    string
		err     string
		is      error
	}{
		{name: "replaces chain", entries: []string{"name: a", "{name: b, replaces: a}", "{name: c, replaces: b}"}, head: "c"},
		{name: "entry order does not matter", entries: []string{"{name: c, replaces: b}", "name: a", "{name: b, replaces: a}"}, head: "c"},
		{name: "skips is an edge", entries: []string{"name: a", "{name: b, skips: [a]}"}, head: "b"},
		{name: "replaces outside the channel", entries: []string{"{name: b, replaces: gone}"}, head: "b"},
		{name: "skipRange is not an edge", entries: []string{"name: a", "{name: b, replaces: a}", "{name: c, skipRange: '>=0.0.0 <9.0.0'}"},
			err: "multiple channel heads found: b, c", is: fbc.ErrMultipleChannelHeads},
		{name: "two heads", entries: []string{"name: b", "name: a"},
			err: "multiple channel heads found: a, b", is: fbc.ErrMultipleChannelHeads},
		{name: "no head (cycle)", entries: []string{"{name: a, replaces: b}", "{name: b, replaces: a}"},
			err: "no channel head found", is: fbc.ErrNoChannelHead},
		{name: "no head (self skip)", entries: []string{"{name: a, skips: [a]}"},
			err: "no channel head found", is: fbc.ErrNoChannelHead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var bundles string
			for _, e := range tc.entries {
				var entry struct{ Name string }
				require.NoError(t, yamlUnmarshal(e, &entry))
				bundles += bundleYAML("p", entry.Name, "1.0.0", "")
			}
			dir := writeTree(t, map[string]string{"c.yaml": pkgYAML("p", "ch") + channelYAML("p", "ch", tc.entries...) + bundles})
			c, err := fbc.Load(dir)
			require.NoError(t, err)
			p, _ := c.Package("p")
			head, err := p.Channels["ch"].Head()
			_, berr := p.HeadBundle("ch")
			if tc.err == "" {
				require.NoError(t, err)
				require.NoError(t, berr)
				assert.Equal(t, tc.head, head)
				return
			}
			for _, e := range []error{err, berr} {
				require.ErrorIs(t, e, tc.is)
				assert.ErrorContains(t, e, tc.err)
				assert.ErrorContains(t, e, `package "p"`)
				assert.ErrorContains(t, e, `channel "ch"`)
				assert.ErrorContains(t, e, filepath.Join(dir, "c.yaml")+":")
			}
		})
	}
}

func TestExamplesErrors(t *testing.T) {
	tests := []struct {
		name, examples string
		want           []string
	}{
		{"not JSON", `[{"kind": "Widget",}]`, []string{"invalid JSON", "line 1"}},
		{"object not array", `{"kind": "Widget"}`, []string{"expected a JSON array of objects (a list of mappings), got a mapping"}},
		{"string element", `[{"kind": "Widget"}, "oops"]`, []string{"element 1: expected a JSON object (a mapping), got a string"}},
		{"null element", `[null]`, []string{"element 0: expected a JSON object (a mapping), got null"}},
		{"trailing data", `[{"kind": "Widget"}] []`, []string{"unexpected data after the JSON array"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"c.yaml": pkgYAML("p", "ch") + channelYAML("p", "ch", "name: p.v1") + bundleYAML("p", "p.v1", "1.0.0", tc.examples)})
			c, err := fbc.Load(dir)
			require.NoError(t, err, "examples are parsed on demand, not at load")
			p, _ := c.Package("p")
			ex, err := p.Bundles["p.v1"].Examples()
			assert.Nil(t, ex)
			for _, w := range append(tc.want, `bundle "p.v1"`, `package "p"`, filepath.Join(dir, "c.yaml"), "alm-examples") {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings; "$DIR" is the temp folder
		is    error
	}{
		{
			name:  "duplicate package across files",
			files: map[string]string{"a/catalog.yaml": simpleCatalog("foo"), "b/catalog.json": `{"schema":"olm.package","name":"foo"}`},
			want:  []string{`package "foo"`, "defined twice", "$DIR/a/catalog.yaml:2", "$DIR/b/catalog.json:1"},
			is:    fbc.ErrDuplicate,
		},
		{
			name:  "duplicate bundle",
			files: map[string]string{"c.yaml": simpleCatalog("foo") + bundleYAML("foo", "foo.v1.0.0", "1.0.0", "")},
			want:  []string{`bundle "foo.v1.0.0"`, "defined twice", "(document 5)", "(document 2)"},
			is:    fbc.ErrDuplicate,
		},
		{
			name:  "blob missing schema",
			files: map[string]string{"c.yaml": pkgYAML("foo", "stable") + "---\nname: nothing\npackage: foo\n"},
			want:  []string{"$DIR/c.yaml:9 (document 1)", `no "schema"`},
		},
		{
			name:  "JSON blob missing schema",
			files: map[string]string{"c.json": `{"schema":"olm.package","name":"a"}` + "\n\n" + `{"name":"b"}`},
			want:  []string{"$DIR/c.json:3 (document 1)", `no "schema"`},
		},
		{
			name:  "YAML syntax error",
			files: map[string]string{"c.yaml": pkgYAML("foo", "stable") + "---\nschema: [olm.bundle\n"},
			want:  []string{"$DIR/c.yaml (document 1)", "invalid YAML"},
		},
		{
			name:  "JSON syntax error",
			files: map[string]string{"c.json": "{\"schema\":\"olm.package\",\"name\":\"a\"}\n{\"schema\": olm}"},
			want:  []string{"$DIR/c.json:2 (document 1)", "invalid JSON"},
		},
		{
			name:  "document is a list",
			files: map[string]string{"c.yaml": "- a\n- b\n"},
			want:  []string{"$DIR/c.yaml:1 (document 0)", "must be a YAML mapping"},
		},
		{
			name:  "channel without package blob",
			files: map[string]string{"c.yaml": channelYAML("ghost", "stable", "name: g.v1")},
			want:  []string{`package "ghost"`, "no olm.package blob", "$DIR/c.yaml"},
		},
		{
			name:  "channel entry without bundle",
			files: map[string]string{"c.yaml": pkgYAML("foo", "stable") + channelYAML("foo", "stable", "name: foo.v1", "{name: foo.v2, replaces: foo.v1}") + bundleYAML("foo", "foo.v1", "1", "")},
			want:  []string{`package "foo"`, `channel "stable"`, "without an olm.bundle blob: foo.v2"},
		},
		{
			name:  "default channel missing",
			files: map[string]string{"c.yaml": pkgYAML("foo", "nope") + channelYAML("foo", "stable", "name: foo.v1") + bundleYAML("foo", "foo.v1", "1", "")},
			want:  []string{`defaultChannel "nope"`, "channels: stable"},
		},
		{
			name:  "bundle package property mismatch",
			files: map[string]string{"c.yaml": pkgYAML("foo", "") + strings.Replace(bundleYAML("foo", "foo.v1", "1", ""), "packageName: foo", "packageName: bar", 1)},
			want:  []string{`bundle "foo.v1"`, `packageName "bar"`},
		},
		{
			name:  "bad base64 bundle object",
			files: map[string]string{"c.yaml": strings.Replace(oldShapeCatalog(csvJSON), "{data: ", "{data: '!!!', was: ", 1)},
			want:  []string{`bundle "old.v0.1.0"`, "invalid base64", "$DIR/c.yaml:"},
		},
		{
			name:  "bad JSON in bundle object",
			files: map[string]string{"c.yaml": oldShapeCatalog(`{"kind": "ClusterServiceVersion", `)},
			want:  []string{`bundle "old.v0.1.0"`, "invalid JSON manifest", "$DIR/c.yaml:"},
		},
		{
			name:  "wrong field type",
			files: map[string]string{"c.yaml": pkgYAML("foo", "") + "---\nschema: olm.channel\npackage: foo\nname: x\nentries: {name: a}\n"},
			want:  []string{`channel "x"`, `field "entries": expected a list, got a mapping`},
		},
		{
			name:  "deprecation of a missing channel",
			files: map[string]string{"c.yaml": simpleCatalog("dep") + deprecationsCatalog},
			want:  []string{`package "dep"`, `olm.channel "beta" does not exist`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, tc.files)
			_, err := fbc.Load(dir)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, strings.ReplaceAll(w, "$DIR", dir))
			}
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			var ce *fbc.Error
			assert.True(t, errors.As(err, &ce), "errors are *fbc.Error: %v", err)
		})
	}
}

func TestDeprecations(t *testing.T) {
	cat := strings.ReplaceAll(simpleCatalog("dep"), "stable", "beta") + deprecationsCatalog
	dir := writeTree(t, map[string]string{"c.yaml": cat})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	p, _ := c.Package("dep")
	require.Len(t, p.Deprecations, 3)

	d, ok := p.DeprecationFor("olm.package", "")
	require.True(t, ok)
	assert.Equal(t, "the whole package is deprecated", d.Message)
	assert.Equal(t, 5, d.Source.Index)
	d, ok = p.DeprecationFor("olm.channel", "beta")
	require.True(t, ok)
	assert.Equal(t, "use stable", d.Message)
	d, ok = p.DeprecationFor("olm.bundle", "dep.v1.0.0")
	require.True(t, ok)
	assert.Equal(t, fbc.DeprecationReference{Schema: "olm.bundle", Name: "dep.v1.0.0"}, d.Reference)
	_, ok = p.DeprecationFor("olm.bundle", "dep.v1.2.0")
	assert.False(t, ok)
}

func TestPackagesFilter(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/catalog.yaml": simpleCatalog("foo") + simpleCatalog("bar"),
		// bar again, and a broken bar channel: dropped, so neither is an error.
		"b/catalog.yaml": simpleCatalog("bar") + "---\nschema: olm.channel\npackage: bar\nname: [1]\n",
	})
	c, err := fbc.LoadWith(fbc.LoadOptions{Packages: []string{"foo", "absent"}}, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"foo"}, c.PackageNames())
	_, ok := c.Package("bar")
	assert.False(t, ok)

	// Unfiltered, bar is read: its broken channel is an error.
	_, err = fbc.Load(dir)
	assert.ErrorContains(t, err, `package "bar": olm.channel: field "name": expected a string, got a list`)
}

func TestBuilderAddBlob(t *testing.T) {
	b := fbc.NewBuilder(fbc.LoadOptions{})
	src := func(i int) fbc.Source { return fbc.Source{File: "items.yaml", Index: i} }
	require.NoError(t, b.AddBlob(src(0), map[string]any{"schema": "olm.package", "name": "k", "defaultChannel": "c"}))
	// Blobs decoded by other YAML libraries may use map[any]any and Go numbers.
	require.NoError(t, b.AddBlob(src(1), map[string]any{"schema": "olm.channel", "package": "k", "name": "c",
		"entries": []any{map[any]any{"name": "k.v1"}}}))
	require.NoError(t, b.AddBlob(src(2), map[string]any{"schema": "olm.bundle", "package": "k", "name": "k.v1",
		"properties": []any{
			map[string]any{"type": "olm.package", "value": map[any]any{"packageName": "k", "version": json.Number("1.10")}},
			map[string]any{"type": "olm.csv.metadata", "value": map[string]any{"annotations": map[string]any{"olm.skipRange": "<1.10", "olm.n": 3, "olm.b": true, "ui": "dropped"}}},
		}}))
	err := b.AddBlob(src(3), map[string]any{"name": "x"})
	require.ErrorContains(t, err, `items.yaml (document 3): blob has no "schema"`)
	c, err := b.Catalog()
	require.NoError(t, err)
	p, _ := c.Package("k")
	bu, err := p.HeadBundle("c")
	require.NoError(t, err)
	assert.Equal(t, "1.10", bu.Version)
	assert.Equal(t, "<1.10", bu.SkipRange)
	assert.Equal(t, map[string]string{"olm.skipRange": "<1.10", "olm.n": "3", "olm.b": "true"}, bu.Annotations)

	_, err = b.Catalog()
	assert.Error(t, err, "a Builder is finished once")
	_, err = p.HeadBundle("nope")
	assert.ErrorContains(t, err, `items.yaml (document 0): package "k": channel "nope": channel not found (channels: c)`)
}

func TestYAMLScalarsStayExact(t *testing.T) {
	// Unquoted versions and channel names that look like numbers keep their text.
	cat := pkgYAML("n", "1.10") + channelYAML("n", "1.10", "name: n.v1") +
		strings.Replace(bundleYAML("n", "n.v1", "1.10", ""), "version: 1.10", "version: 1.10\n    release: 2", 1)
	dir := writeTree(t, map[string]string{"c.yaml": cat})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	p, _ := c.Package("n")
	assert.Equal(t, []string{"1.10"}, p.ChannelNames())
	b, err := p.HeadBundle("1.10")
	require.NoError(t, err)
	assert.Equal(t, "1.10", b.Version)
}

func TestLoadPaths(t *testing.T) {
	dir := writeTree(t, map[string]string{"a/c.yaml": simpleCatalog("a"), "b/c.yml": simpleCatalog("b"), "x.txt": "ignored"})
	c, err := fbc.Load(filepath.Join(dir, "a"), filepath.Join(dir, "b", "c.yml"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, c.PackageNames())

	_, err = fbc.Load(filepath.Join(dir, "missing"))
	assert.ErrorContains(t, err, "missing")
	_, err = fbc.Load(filepath.Join(dir, "x.txt"))
	assert.ErrorContains(t, err, "extension")
	_, err = fbc.Load()
	assert.Error(t, err)
}

func TestDuplicatesAllReported(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/catalog.yaml": simpleCatalog("foo") + simpleCatalog("bar"),
		"b/catalog.yaml": simpleCatalog("bar") + simpleCatalog("foo"),
	})
	_, err := fbc.Load(dir)
	require.ErrorIs(t, err, fbc.ErrDuplicate)
	for _, w := range []string{
		filepath.Join(dir, "b", "catalog.yaml") + `:2 (document 0): package "bar": olm.package defined twice: first at ` + filepath.Join(dir, "a", "catalog.yaml") + ":",
		`package "foo": olm.package defined twice`,
	} {
		assert.ErrorContains(t, err, w)
	}
	// The channels and bundles of a package defined twice clash too; saying
	// so would only bury the two lines that matter.
	assert.NotContains(t, err.Error(), "olm.bundle defined twice")
	assert.Equal(t, 2, strings.Count(err.Error(), "defined twice"))
}
