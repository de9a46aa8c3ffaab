package fbc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// decodeText decodes one YAML document as a blob (no pruning, no peek).
func decodeText(t testing.TB, data []byte) ([]item, error) {
	t.Helper()
	return decodeWith(data, nil)
}

// decodePruned decodes a pruned document, its alm-examples put back.
func decodePruned(t testing.TB, p *pruned) ([]item, error) {
	t.Helper()
	return decodeWith(p.data, p)
}

func decodeWith(data []byte, p *pruned) ([]item, error) {
	root, err := parseYAMLDoc(data, 1)
	if err != nil || root == nil {
		return nil, err
	}
	conv := manifest.Converter{Budget: 10*len(data) + 10000}
	v, err := conv.Value(root)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	if p != nil && !p.restore(m) {
		return nil, errRestore
	}
	return NewBuilder(LoadOptions{}).dec.decodeBlob(Source{File: "x"}, m)
}

var errRestore = errors.New("alm-examples could not be put back")

// documents cuts a file into its documents, with their peek, as the
// splitter does.
func documents(t testing.TB, path string) []*chunk {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []*chunk
	require.NoError(t, splitYAML(path, f, func(c *chunk) error {
		c.data = append([]byte(nil), c.data...) // borrowed
		out = append(out, c)
		return nil
	}, func(int) {}))
	return out
}

// TestPruneKeepsEveryField: on every bundle of the real catalogs (the reference folder's
// copy of testdata/catalogs, and the shared ones too when present, unless -short), the
// pruned document decodes to the same Bundle as the document, and pruning did cut.
func TestPruneKeepsEveryField(t *testing.T) {
	roots := []string{refdata.Testdata(t, "catalogs")}
	if !testing.Short() {
		if _, err := os.Stat("../../../shared/catalogs"); err == nil {
			roots = append(roots, "../../../shared/catalogs")
		}
	}
	var docs, pruned, extracted int
	var before, after int
	for _, root := range roots {
		require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
				return err
			}
			for _, c := range documents(t, p) {
				if c.peek.schema != schemaBundle && c.peek.schema != schemaPackage {
					continue
				}
				docs++
				cut := prune(c.data, c.peek.schema, true)
				if cut == nil {
					// a package without an icon has nothing to cut
					assert.Equal(t, schemaPackage, c.peek.schema, "%s:%d: a bundle not pruned", p, c.src.Line)
					continue
				}
				pruned++
				if cut.examples != nil {
					extracted++
				}
				before, after = before+len(c.data), after+len(cut.data)
				want, err := decodeText(t, c.data)
				require.NoError(t, err)
				got, err := decodePruned(t, cut)
				require.NoError(t, err, "%s:%d", p, c.src.Line)
				assert.Equal(t, want, got, "%s:%d", p, c.src.Line)
			}
			return nil
		}))
	}
	assert.Greater(t, pruned, docs*9/10)
	assert.GreaterOrEqual(t, extracted, pruned*3/4, "most alm-examples are literal blocks the pruning takes out")
	assert.Less(t, after, before*7/10, "pruning cuts at least 30%% of the bytes")
	t.Logf("%d documents, %d pruned, %d alm-examples taken out, %d → %d bytes", docs, pruned, extracted, before, after)
}

func TestPrune(t *testing.T) {
	bundle := func(body string) string {
		return "schema: olm.bundle\nname: b\npackage: p\nproperties:\n" + body
	}
	tests := []struct {
		name, in string
		want     string // "" means nil: nothing cut, or a layout prune does not follow
	}{
		{
			name: "csv metadata subtrees",
			in: bundle("- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n" +
				"    annotations:\n      description: dropped, not kept\n      olm.x: kept, an annotation\n    crdDescriptions:\n      owned:\n      - name: x\n        description: |\n          description: not a key\n" +
				"    description: long\n      text\n    displayName: D\n    keywords:\n    - a\n    - b\n    installModes:\n    - {type: OwnNamespace, supported: true}\n" +
				"    links:\n    - name: x\n      url: y\n    provider: {name: x}\nrelatedImages:\n- image: x\n  name: \"\"\nschema: olm.bundle\n"),
			want: bundle("- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n" +
				"    annotations:\n      olm.x: kept, an annotation\n    displayName: D\n    installModes:\n    - {type: OwnNamespace, supported: true}\nschema: olm.bundle\n"),
		},
		{
			name: "indented sequence",
			in:   bundle("  - type: olm.csv.metadata\n    value:\n      description: \"quoted\n        over lines\"\n      displayName: D\n"),
			want: bundle("  - type: olm.csv.metadata\n    value:\n      displayName: D\n"),
		},
		{
			name: "description of another property is kept",
			in:   bundle("- type: example.com/other\n  value:\n    description: kept\n"),
		},
		{
			name: "type after value: not followed",
			in:   bundle("- value:\n    description: x\n  type: olm.csv.metadata\n"),
		},
		{
			name: "a quoted scalar spanning lines ends the drop where it ends",
			in:   bundle("- type: olm.csv.metadata\n  value:\n    description: 'it''s\n  displayName: fake'\n    displayName: D\n"),
			want: bundle("- type: olm.csv.metadata\n  value:\n    displayName: D\n"),
		},
		{
			name: "flow collection spanning lines",
			in:   bundle("- type: olm.csv.metadata\n  value:\n    keywords: [a,\n      b]\n    displayName: D\n"),
		},
		{
			name: "flow collection spanning lines outside a drop",
			in:   bundle("- type: olm.csv.metadata\n  value:\n    installModes: [a,\n      b]\n    keywords: [x]\n"),
		},
		{
			name: "anchors",
			in:   bundle("- type: olm.csv.metadata\n  value:\n    description: &d x\n    displayName: *d\n"),
		},
		{
			name: "tabs",
			in:   bundle("- type: olm.csv.metadata\n  value:\n\t description: x\n"),
		},
		{
			name: "package icon",
			in:   "schema: olm.package\nname: p\nicon:\n  base64data: AAAA\n  mediatype: image/svg+xml\ndefaultChannel: s\n",
			want: "schema: olm.package\nname: p\ndefaultChannel: s\n",
		},
		{
			name: "nothing to cut",
			in:   "schema: olm.package\nname: p\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := schemaBundle
			if strings.HasPrefix(tc.in, "schema: olm.package") {
				schema = schemaPackage
			}
			got := prune([]byte(tc.in), schema, true)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, string(got.data))
		})
	}
}

// FuzzPrune: whenever both a document and its pruned text decode, they
// decode to the same items (when the pruned text fails, workYAML decodes the
// document as written).
func FuzzPrune(f *testing.F) {
	// Small seeds: the fuzzer minimizes slowly on documents of many kB.
	f.Add([]byte(strings.Join([]string{"schema: olm.bundle", "name: b", "package: p", "properties:",
		"- type: olm.package", "  value: {packageName: p, version: 1.0.0}",
		"- type: olm.csv.metadata", "  value:", "    annotations:", "      alm-examples: '[{\"kind\": \"K\"}]'",
		"      description: \"a\n        b\"", "    crdDescriptions:", "      owned:", "      - kind: K", "        description: |",
		"          text: x", "    description: |-", "      long", "    displayName: D", "    installModes:",
		"    - supported: true", "      type: OwnNamespace", "    keywords:", "    - k", "relatedImages:", "- image: i", "  name: \"\"", ""}, "\n")))
	f.Add([]byte("schema: olm.bundle\nproperties:\n  - type: olm.csv.metadata\n    value:\n      description: 'x\n        y'\n      links: [a,\n        b]\n      displayName: D\n"))
	f.Add([]byte("schema: olm.package\nname: p\nicon:\n  base64data: AAAA\n  mediatype: image/svg+xml\ndefaultChannel: s\n"))
	f.Add([]byte("schema: olm.bundle\nproperties:\n- type: olm.csv.metadata\n  value:\n    annotations:\n      alm-examples: |+\n\n        [1,\n\n          2]\n\n      b: c\n    displayName: D\n"))
	f.Add([]byte("schema: olm.bundle\nname: b\npackage: p\nproperties:\n- type: olm.csv.metadata\n  value:\n    description: |\n      x\n    annotations: {a: b}\n"))
	f.Add([]byte("schema: olm.bundle\nname: b\npackage: p\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n- type: olm.bundle.object\n  value:\n    data: eyJhcGlWZXJzaW9uIjogInYxIiwgImtpbmQiOiAiU2VydmljZSIsICJtZXRhZGF0YSI6IHsibmFtZSI6ICJzIn19\n- type: olm.bundle.object\n  value:\n    data: eyJhcGlWZXJzaW9uIjogIm9wZXJhdG9ycy5jb3Jlb3MuY29tL3YxYWxwaGExIiwgImtpbmQiOiAiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIiwgIm1ldGFkYXRhIjogeyJuYW1lIjogImIiLCAiYW5ub3RhdGlvbnMiOiB7ImFsbS1leGFtcGxlcyI6ICJbXSJ9fSwgInNwZWMiOiB7ImRpc3BsYXlOYW1lIjogIkQifX0= # a comment\n- value:\n    data: eyJhcGlWZXJzaW9uIjogInYxIiwgImtpbmQiOiAiU2VydmljZSIsICJtZXRhZGF0YSI6IHsibmFtZSI6ICJzIn19\n  type: olm.bundle.object\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, schema := range []string{schemaBundle, schemaPackage} {
			cut := prune(data, schema, true)
			if cut == nil {
				continue
			}
			want, werr := decodeText(t, data)
			if werr != nil {
				continue // the dropped text may hold the error: the decoder never reads it
			}
			if _, perr := parseYAMLDoc(cut.data, 1); perr != nil {
				continue // workYAML parses the document as written
			}
			got, gerr := decodePruned(t, cut)
			if gerr != nil {
				continue // workYAML decodes the document as written
			}
			if !assert.ObjectsAreEqual(want, got) {
				t.Fatalf("pruning changed the result:\n%s\n---- pruned:\n%s\nwant %+v\ngot  %+v (%v)", data, cut.data, want, got, gerr)
			}
		}
	})
}

func TestPruneLiteralExamples(t *testing.T) {
	doc := func(block string) []byte {
		return []byte("schema: olm.bundle\nname: b\npackage: p\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n" +
			"- type: olm.csv.metadata\n  value:\n    annotations:\n      alm-examples: " + block + "      other: x\n    description: cut\n")
	}
	blocks := map[string]bool{ // block → taken out
		"|-\n        [{\"kind\": \"K\"}]\n":                                       true,
		"|\n        [\n          {\"kind\": \"K\"}\n        ]\n\n\n":              true,
		"|+\n        [{\"kind\": \"K\"}]\n\n   \n":                                true,
		"|-\n\n        [{\"kind\": \"K\"}]\n":                                     true,
		"|-\n        [{\"kind\":\n            \"K\"}]   \n          \n        \n": true,
		"|-\n        # not a comment\n        []\n":                               true,
		"|2-\n          [{\"kind\": \"K\"}]\n":                                    false,
		">-\n        [{\"kind\": \"K\"}]\n":                                       false,
		"'[{\"kind\": \"K\"}]'\n":                                                 false,
		"|-\n        [{\"kind\": \"é\"}]\n":                                       false,
		"|-\n        [{\"kind\":\t\"K\"}]\n":                                      false,
		"|-\n           \n        []\n":                                           false,
		"|+\n        []\n          \n":                                            false,
	}
	for block, out := range blocks {
		t.Run(block, func(t *testing.T) {
			data := doc(block)
			p := prune(data, schemaBundle, true)
			require.NotNil(t, p, "description is cut")
			assert.Equal(t, out, p.examples != nil)
			want, werr := decodeText(t, data)
			got, err := decodePruned(t, p)
			if werr != nil {
				assert.Error(t, err, "invalid YAML stays invalid")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestPeekYAML(t *testing.T) {
	tests := []struct {
		name, doc string
		want      peekResult
	}{
		{"sorted keys", "---\ndefaultChannel: a\nname: p\nschema: olm.package\n", peekResult{ok: true, schema: "olm.package", name: "p"}},
		{"sequence at column 0", "entries:\n- name: a\n  replaces: b\nname: ch\npackage: p\nschema: olm.channel\n", peekResult{ok: true, schema: "olm.channel", name: "ch", pkg: "p"}},
		{"quoted", "schema: 'olm.bundle'\npackage: \"p\"\nname: 'it''s'\n", peekResult{ok: true, schema: "olm.bundle", pkg: "p", name: "it's"}},
		{"plain quotes", "schema: olm.bundle\npackage: p\nname: it''s\n", peekResult{ok: true, schema: "olm.bundle", pkg: "p", name: "it''s"}},
		{"comments", "# c\nschema: olm.bundle # c\npackage: p\n", peekResult{ok: true, schema: "olm.bundle", pkg: "p"}},
		{"number name: not read", "schema: olm.channel\npackage: p\nname: 010\n", peekResult{ok: true, schema: "olm.channel", pkg: "p"}},
		{"canonical number read", "schema: olm.channel\npackage: p\nname: 1.10\n", peekResult{ok: true, schema: "olm.channel", pkg: "p", name: "1.10"}},
		{"escapes", "schema: olm.bundle\npackage: \"p\\x41\"\n", peekResult{}},
		{"flow", "schema: olm.bundle\nentries: [a,\nb]\n", peekResult{}},
		{"alias", "schema: olm.bundle\npackage: *p\n", peekResult{}},
		{"indented root", "  schema: olm.bundle\n  package: p\n", peekResult{}},
		{"duplicate", "schema: olm.bundle\npackage: p\npackage: q\n", peekResult{}},
		{"null schema", "schema: null\npackage: p\n", peekResult{}},
		{"multi-line quoted at column 0", "schema: olm.bundle\npackage: \"p\nschema: x\"\n", peekResult{}},
		{"a root sequence", "- schema: olm.bundle\n", peekResult{}},
		{"value after the marker", "--- {schema: olm.bundle}\n", peekResult{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []*chunk
			require.NoError(t, splitYAML("x.yaml", strings.NewReader(tc.doc), func(c *chunk) error { got = append(got, c); return nil }, func(int) {}))
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0].peek)
		})
	}
}

func TestSplitYAML(t *testing.T) {
	type doc struct {
		index, line int
		text        string
	}
	tests := []struct {
		name, in string
		want     []doc
	}{
		{"markers", "---\na: 1\n---\nb: 2\n", []doc{{0, 1, "---\na: 1\n"}, {1, 3, "---\nb: 2\n"}}},
		{"no first marker", "a: 1\n---\nb: 2", []doc{{0, 1, "a: 1\n"}, {1, 2, "---\nb: 2"}}},
		{"comments and directive before the marker", "# c\n%YAML 1.2\n---\na: 1\n", []doc{{0, 1, "# c\n%YAML 1.2\n---\na: 1\n"}}},
		{"empty documents count", "---\n---\n# only a comment\n---\na: 1\n", []doc{{2, 4, "---\na: 1\n"}}},
		{"document end", "a: 1\n...\n---\nb: 2\n...\nc: 3\n", []doc{{0, 1, "a: 1\n...\n"}, {1, 3, "---\nb: 2\n...\n"}, {2, 6, "c: 3\n"}}},
		{"not markers", "a: |\n  ---\n  ...\nb: ----\n--- # comment\nc: 1\n", []doc{{0, 1, "a: |\n  ---\n  ...\nb: ----\n"}, {1, 5, "--- # comment\nc: 1\n"}}},
		{"CRLF", "---\r\na: 1\r\n---\r\nb: 2\r\n", []doc{{0, 1, "---\r\na: 1\r\n"}, {1, 3, "---\r\nb: 2\r\n"}}},
		{"value after the marker", "--- a\n--- [b]\n", []doc{{0, 1, "--- a\n"}, {1, 2, "--- [b]\n"}}},
		{"long line", "a: " + strings.Repeat("x", 3*readBufSize) + "\n---\nb: 1\n", []doc{{0, 1, "a: " + strings.Repeat("x", 3*readBufSize) + "\n"}, {1, 2, "---\nb: 1\n"}}},
	}
	// the lines where the documents opm reads as blobs without a schema start (opmChunk)
	contentless := map[string][]int{"empty documents count": {1, 3}, "comments and directive before the marker": {1}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []doc
			var noSchema []int
			read := 0
			require.NoError(t, splitYAML("x.yaml", strings.NewReader(tc.in), func(c *chunk) error {
				if len(c.pre) == 1 && c.pre[0].kind == itemContentless {
					noSchema = append(noSchema, c.src.Line)
					return nil
				}
				got = append(got, doc{c.src.Index, c.src.Line, string(c.data)})
				return nil
			}, func(n int) { read += n }))
			assert.Equal(t, tc.want, got)
			assert.Equal(t, contentless[tc.name], noSchema)
			assert.Equal(t, len(tc.in), read)
		})
	}
}

func TestSplitJSON(t *testing.T) {
	type doc struct {
		index, line int
		text        string
	}
	tests := []struct {
		name, in string
		want     []doc
	}{
		{"stream", "{\"a\":1}{\"b\":\"}{\"}\n\n  {\"c\":[1,{\"d\":\"\\\"]\"}]}\n", []doc{{0, 1, `{"a":1}`}, {1, 1, `{"b":"}{"}`}, {2, 3, `{"c":[1,{"d":"\"]"}]}`}}},
		{"byte order mark", "\xef\xbb\xbf{\"a\":1}", []doc{{0, 1, `{"a":1}`}}},
		{"scalars and strays", "[1] 3 \"x\" } ,{}", []doc{{0, 1, "[1]"}, {1, 1, "3"}, {2, 1, `"x"`}, {3, 1, "}"}, {4, 1, ","}, {5, 1, "{}"}}},
		{"cut short", "{\"a\":\n[1,", []doc{{0, 1, "{\"a\":\n[1,"}}},
		{"big value", "{\"a\":\"" + strings.Repeat("x", 3*readBufSize) + "\"}\n{}", []doc{{0, 1, "{\"a\":\"" + strings.Repeat("x", 3*readBufSize) + "\"}"}, {1, 2, "{}"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []doc
			require.NoError(t, splitJSON("x.json", &oneByteReader{strings.NewReader(tc.in), tc.name == "stream"}, func(c *chunk) error {
				got = append(got, doc{c.src.Index, c.src.Line, string(c.data)})
				return nil
			}, func(int) {}))
			assert.Equal(t, tc.want, got)
		})
	}
}

// oneByteReader reads a byte at a time when slow is set, to cut values at
// every possible place.
type oneByteReader struct {
	r    *strings.Reader
	slow bool
}

func (o *oneByteReader) Read(p []byte) (int, error) {
	if o.slow && len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestPeekJSON(t *testing.T) {
	assert.Equal(t, peekResult{ok: true, schema: "olm.bundle", pkg: "p", name: "b"},
		peekJSON([]byte(`{"properties":[{"a":"}"}],"schema":"olm.bundle", "package" : "p","name":"b"}`)))
	assert.Equal(t, peekResult{ok: true, schema: "olm.package", pkg: "p", name: "p"}, peekJSON([]byte(`{"schema":"olm.package","name":"p"}`)))
	for _, bad := range []string{`{"schema":"olm.bundle","package":"p\u0041"}`, `{"schema":1}`, `[1]`, `{"schema":"a","schema":"b"}`, `{"schema":"a"`, `{"x":[}`} {
		assert.False(t, peekJSON([]byte(bad)).ok, bad)
	}
}

func TestCanonicalNumbers(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "10": true, "1.10": true, "0.5": true, "010": false, "1.": false, "1e3": false, "-1": false, "": false} {
		assert.Equal(t, want, canonicalNumber([]byte(s)), s)
	}
	for s, want := range map[string]bool{"1.2.3": true, ".5": true, "-1": true, "+.inf": true, ".nan": true, "v1": false, "-": false, ".x": false} {
		assert.Equal(t, want, looksNumeric([]byte(s)), s)
	}
	_ = bytes.MinRead
}
