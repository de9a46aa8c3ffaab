package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// How a catalog stream is read (see stream.go for the pipeline):
//
//  1. a splitter cuts the stream into documents without parsing them: YAML
//     at the "---" / "..." lines (YAML forbids those markers at column 0
//     inside any scalar), JSON at the end of each top-level value;
//  2. while it does, a peek reads the top-level schema, package and name of
//     the document from its unindented lines (or top-level JSON members);
//     a document of a package that is not kept, or of a schema this package
//     does not interpret, is then dropped without being parsed;
//  3. the other documents are parsed (YAML bundles first lose the subtrees
//     of olm.csv.metadata no field of Bundle comes from, see prune.go) and
//     decoded into items by workers, and inserted in document order.
//
// When the peek is unsure (flow style, anchors, quoting it does not read,
// values that are not plain strings) the document is parsed in full and the
// decoder decides, so that the shortcuts never change a result.

// formatOf picks the decoder from the file extension; "" means not a catalog file.
func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return "yaml"
	case ".json":
		return "json"
	}
	return ""
}

func errNotCatalogFile(name string) error {
	return &Error{Source: fileSource(name), Err: errors.New("not a catalog file: the extension must be .yaml, .yml or .json")}
}

// chunk is one document of a stream, cut but not parsed.
type chunk struct {
	json bool
	// src: File and Index of the document; Line is the line of the chunk's
	// first byte, which the parser's relative lines are added to.
	src  Source
	data []byte // may be the splitter's buffer: see pipeline.emit
	peek peekResult
	// snapshotItem marks one (dedented) spec.packages element of a
	// CatalogSnapshot; snapshotHeader the rest of that document.
	snapshotItem, snapshotHeader bool
	// pre, when set, is the result: the document needs no parsing.
	pre []item
	// owner is the Tree file the chunk comes from, if any.
	owner *treeFile
}

// peekResult is what the peek read of a document's top level.
type peekResult struct {
	ok                bool
	schema, pkg, name string
	kind, apiVersion  string
}

// decide returns the items of a document the peek can settle without
// parsing it, or nil when it must be parsed.
func (d *decoder) decide(c *chunk) []item {
	p := c.peek
	if !p.ok {
		return nil
	}
	if c.snapshotItem {
		if p.name != "" && !d.keeps(p.name) {
			return []item{{kind: itemSkipped, src: c.src, pkg: p.name}}
		}
		return nil
	}
	switch p.schema {
	case "":
		return nil // no schema: an error or a CatalogSnapshot, the decoder says
	case schemaPackage:
		if p.name != "" && !d.keeps(p.name) {
			return []item{{kind: itemSkipped, src: c.src, pkg: p.name}}
		}
	case schemaChannel, schemaBundle, schemaDeprecations:
		if p.pkg != "" && !d.keeps(p.pkg) {
			return []item{{kind: itemSkipped, src: c.src, pkg: p.pkg}}
		}
	default:
		// Valid FBC that this package does not interpret. A filtered load
		// does not even check its syntax; a full load does (as opm would).
		if d.keep != nil {
			return []item{{kind: itemIgnored, src: c.src, pkg: p.schema}}
		}
	}
	return nil
}

// work parses and decodes one chunk. It only reads the decoder's filter, so
// that workers may run it concurrently.
func (d *decoder) work(c *chunk) ([]item, error) {
	if c.pre != nil {
		return c.pre, nil
	}
	if c.json {
		return d.workJSON(c)
	}
	return d.workYAML(c)
}

func (d *decoder) workJSON(c *chunk) ([]item, error) {
	dec := json.NewDecoder(bytes.NewReader(c.data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		src := c.src
		var se *json.SyntaxError
		if errors.As(err, &se) {
			src.Line += bytes.Count(c.data[:min(int(se.Offset), len(c.data))], []byte{'\n'})
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, &Error{Source: src, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	blob, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Source: c.src, Err: fmt.Errorf("a catalog blob must be a mapping (a JSON object), got %s", manifest.Describe(v))}
	}
	return d.decodeBlob(c.src, blob)
}

func (d *decoder) workYAML(c *chunk) ([]item, error) {
	if c.peek.ok && !c.snapshotItem && !c.snapshotHeader {
		if p := prune(c.data, c.peek.schema, !d.relatedImages); p != nil {
			if root, err := parseYAMLDoc(p.data, c.src.Line); err == nil {
				if items, err, ok := d.decodeRoot(c, root, p); ok && err == nil {
					return items, nil
				}
			}
			// The pruned text does not parse or decode, or its
			// alm-examples cannot be put back (a mapping left empty, a
			// layout prune misread…): the document as written decides,
			// errors included.
		}
	}
	root, err := parseYAMLDoc(c.data, c.src.Line)
	if err != nil {
		return nil, &Error{Source: Source{File: c.src.File, Index: c.src.Index}, Err: err}
	}
	items, err, _ := d.decodeRoot(c, root, nil)
	return items, err
}

// decodeRoot decodes a parsed document (nil: an empty one). With p, the
// alm-examples prune took out are put back; ok is false when that fails.
func (d *decoder) decodeRoot(c *chunk, root *yaml.Node, p *pruned) (items []item, err error, ok bool) {
	src := Source{File: c.src.File, Index: c.src.Index}
	if root == nil {
		return nil, nil, true // an empty document
	}
	src.Line = c.src.Line + root.Line - 1
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Source: src, Err: fmt.Errorf("a catalog blob must be a YAML mapping, got %s", nodeKind(root))}, true
	}
	if !c.peek.ok && c.src.Index >= 0 {
		// The peek could not read it; the parsed top level can still
		// save the conversion of a blob that would be dropped.
		if items := d.decideNode(src, root); items != nil {
			return items, nil, true
		}
	}
	conv := manifest.Converter{Budget: 10*len(c.data) + 10000}
	v, err := conv.Value(root)
	if err != nil {
		return nil, &Error{Source: src, Err: err}, true
	}
	m := v.(map[string]any)
	if p != nil && !p.restore(m) {
		return nil, nil, false
	}
	switch {
	case c.snapshotItem:
		items, err = d.decodeSnapshotPackage(src, m)
	case c.snapshotHeader:
		err = checkSnapshotHeader(src, m, true)
	default:
		items, err = d.decodeBlob(src, m)
	}
	return items, err, true
}

// decideNode is decide for a parsed document whose text the peek could not
// read.
func (d *decoder) decideNode(src Source, root *yaml.Node) []item {
	c := chunk{src: src, peek: peekNode(root)}
	if c.peek.schema != "" && c.peek.schema != schemaPackage && c.peek.schema != schemaChannel &&
		c.peek.schema != schemaBundle && c.peek.schema != schemaDeprecations {
		return []item{{kind: itemIgnored, src: src, pkg: c.peek.schema}}
	}
	return d.decide(&c)
}

// parseYAMLDoc parses one document; nil for an empty one. Lines in errors
// are made absolute (first is the line of data's first byte).
func parseYAMLDoc(data []byte, first int) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := safeDecode(dec, &doc)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %s", shiftLines(err.Error(), first))
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid YAML: unexpected second document in one document (line %d)", first+extra.Line-1)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, nil
		}
		root = root.Content[0]
	}
	if root.Kind == 0 || (root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null") {
		return nil, nil
	}
	return root, nil
}

var lineRe = regexp.MustCompile(`\bline (\d+)`)

// shiftLines makes the "line N" of a parser message relative to a document
// absolute.
func shiftLines(msg string, first int) string {
	if first <= 1 {
		return msg
	}
	return lineRe.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(s[len("line "):])
		if err != nil {
			return s
		}
		return "line " + strconv.Itoa(n+first-1)
	})
}

// safeDecode shields us from a panic inside the YAML library: no input may
// crash the program that reads a catalog.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

// peekNode reads schema, package and name from the top-level scalars of a
// parsed mapping that would convert to strings.
func peekNode(m *yaml.Node) peekResult {
	var p peekResult
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			continue
		}
		switch v.ShortTag() {
		case "!!str":
		default:
			continue // numbers may be rewritten, null and booleans are errors: let the decoder say
		}
		switch k.Value {
		case "schema":
			p.schema = v.Value
		case "name":
			p.name = v.Value
		case "package":
			p.pkg = v.Value
		}
	}
	p.ok = p.schema != ""
	if p.schema == schemaPackage {
		p.pkg = p.name
	}
	return p
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unexpected node"
}
