package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// referenceLoad is the plain way to read a catalog file: the whole stream
// through the YAML (or JSON) decoder, every document converted and decoded,
// no peek, no pruning, no workers. The streaming decoder must agree with it.
func referenceLoad(name string, data []byte, opts LoadOptions) (*Catalog, error) {
	b := NewBuilder(opts)
	if formatOf(name) == "json" {
		dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
		dec.UseNumber()
		for i := 0; ; i++ {
			var v any
			err := dec.Decode(&v)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, errors.New("not an object")
			}
			if err := b.add(Source{File: name, Index: i}, m); err != nil {
				return nil, err
			}
		}
		return b.Catalog()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	conv := manifest.Converter{Budget: 10*len(data) + 10000}
	for i := 0; ; i++ {
		var doc yaml.Node
		err := safeDecode(dec, &doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			continue
		}
		if root.Kind != yaml.MappingNode {
			return nil, errors.New("not a mapping")
		}
		v, err := conv.Value(root)
		if err != nil {
			return nil, err
		}
		if err := b.add(Source{File: name, Index: i}, v.(map[string]any)); err != nil {
			return nil, err
		}
	}
	return b.Catalog()
}

func snapshotText(c *Catalog) string {
	var buf bytes.Buffer
	if err := WriteSnapshot(c, &buf, SnapshotMeta{}); err != nil {
		return "ERROR " + err.Error()
	}
	return buf.String()
}

// FuzzStreamingMatchesReference: whatever the plain reading accepts, the
// streaming decoder (splitter, peek, pruning, workers) accepts too, with the
// same result, with and without a package filter, with and without related
// images (pruning cuts them out when they are not kept). (The converse does not
// hold: a filtered load does not parse the blobs it drops, and pruning
// skips the text of fields no Bundle field comes from.)
func FuzzStreamingMatchesReference(f *testing.F) {
	pkg := "---\nschema: olm.package\nname: p\ndefaultChannel: s\nicon:\n  base64data: AAAA\n  mediatype: image/png\n"
	ch := "---\nentries:\n- name: p.v1\n- name: p.v2\n  replaces: p.v1\n  skips:\n  - p.v0\nname: s\npackage: p\nschema: olm.channel\n"
	bundle := func(n, v string) string {
		return "---\nimage: img\nname: " + n + "\npackage: p\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: " + v +
			"\n- type: olm.gvk\n  value: {group: g, kind: K, version: v1}\n- type: olm.csv.metadata\n  value:\n    annotations:\n      alm-examples: |-\n        [{\"kind\": \"K\"}]\n" +
			"      olm.skipRange: <1.0.0\n    crdDescriptions:\n      owned:\n      - description: \"x\n          y\"\n    description: d\n    installModes:\n    - supported: true\n      type: OwnNamespace\nrelatedImages:\n- image: r\n  name: \"\"\nschema: olm.bundle\n"
	}
	other := "---\nschema: olm.channel\npackage: q\nname: s\nentries: [{name: q.v1}]\n---\nschema: olm.package\nname: q\n---\nschema: olm.bundle\npackage: q\nname: q.v1\n"
	f.Add([]byte(pkg+ch+bundle("p.v1", "1.0.0")+bundle("p.v2", "2.0.0")+other), false, false)
	f.Add([]byte(pkg+ch+bundle("p.v1", "1.0.0")+bundle("p.v2", "2.0.0")+other), false, true)
	f.Add([]byte("%YAML 1.2\n---\nschema: example.com/x\n...\n---\n"+pkg[4:]), false, false)
	f.Add([]byte(`{"schema":"olm.package","name":"p"}{"schema":"olm.channel","package":"p","name":"s","entries":[{"name":"p.v1"}]}`+"\n"+
		`{"schema":"olm.bundle","package":"p","name":"p.v1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1"}}]}`), true, false)
	f.Add([]byte(`{"schema":"olm.package","name":"q"} {"schema":"olm.package","name":"p"}`), true, true)
	var snap bytes.Buffer
	if c, err := referenceLoad("x.yaml", []byte(pkg+ch+bundle("p.v1", "1.0.0")+bundle("p.v2", "2.0.0")+other), LoadOptions{RelatedImages: true}); err == nil {
		_ = WriteSnapshot(c, &snap, SnapshotMeta{})
		f.Add(snap.Bytes(), false, false)
		f.Add(snap.Bytes(), false, true)
	}

	f.Fuzz(func(t *testing.T, data []byte, asJSON, filter bool) {
		name := "x.yaml"
		if asJSON {
			name = "x.json"
		}
		var keep []string
		if filter {
			keep = []string{"p"}
		}
		for _, related := range []bool{false, true} {
			streamingMatchesReference(t, name, data, LoadOptions{Packages: keep, RelatedImages: related})
		}
	})
}

// streamingMatchesReference fails t when the reference load accepts data and the streaming
// load does not, or gives another catalog.
func streamingMatchesReference(t *testing.T, name string, data []byte, opts LoadOptions) {
	t.Helper()
	want, werr := referenceLoad(name, data, opts)
	b := NewBuilder(opts)
	err := b.AddReader(name, bytes.NewReader(data))
	var got *Catalog
	if err == nil {
		got, err = b.Catalog()
	}
	if werr != nil {
		return // the streaming decoder may accept what it never parses
	}
	if err != nil {
		t.Fatalf("%+v: the reference accepts it, the streaming decoder says: %v", opts, err)
	}
	if w, g := snapshotText(want), snapshotText(got); w != g {
		t.Fatalf("%+v: different catalogs:\n%s\n---- streaming:\n%s", opts, w, g)
	}
}
