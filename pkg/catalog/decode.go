package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/pkg/manifest"
)

// blobSink receives decoded blobs one at a time, so that a file's blobs are
// never all held in memory together.
type blobSink interface {
	// wants tells, before a YAML blob is converted to a tree, whether the
	// blob could be kept; a no lets the decoder skip the conversion.
	wants(schema, pkg string) bool
	add(src Source, blob map[string]any) error
}

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

// decodeBytes decodes the stream of blobs in data (named name) into sink.
func decodeBytes(name string, data []byte, sink blobSink) error {
	switch formatOf(name) {
	case "yaml":
		return decodeYAML(name, data, sink)
	case "json":
		return decodeJSON(name, data, sink)
	}
	return errNotCatalogFile(name)
}

func errNotCatalogFile(name string) error {
	return &Error{Source: fileSource(name), Err: errors.New("not a catalog file: the extension must be .yaml, .yml or .json")}
}

// decodeJSON reads concatenated JSON objects. Numbers stay json.Number so that
// nothing is rounded.
func decodeJSON(name string, data []byte, sink blobSink) error {
	// encoding/json rejects a byte order mark, which editors on some
	// systems add; it carries no meaning here.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := lineCounter{data: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for index := 0; ; index++ {
		start := skipSpace(data, int(dec.InputOffset()))
		src := Source{File: name, Index: index, Line: lines.at(start)}
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				src.Line = lines.at(int(se.Offset))
			}
			return &Error{Source: src, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		blob, ok := v.(map[string]any)
		if !ok {
			return &Error{Source: src, Err: fmt.Errorf("a catalog blob must be a JSON object, got %s", kindOf(v))}
		}
		if err := sink.add(src, blob); err != nil {
			return err
		}
	}
}

func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

// lineCounter maps increasing byte offsets to 1-based lines without
// rescanning the file from the start each time.
type lineCounter struct {
	data []byte
	off  int
	line int
}

func (l *lineCounter) at(off int) int {
	if l.line == 0 {
		l.line = 1
	}
	off = min(max(off, 0), len(l.data))
	if off < l.off { // not expected (offsets only grow), but stay correct
		l.off, l.line = 0, 1
	}
	l.line += bytes.Count(l.data[l.off:off], []byte{'\n'})
	l.off = off
	return l.line
}

// decodeYAML reads a stream of YAML documents. Each document is first parsed
// into a yaml.Node, which gives its line and lets us look at schema and
// package before paying for the conversion to a tree.
func decodeYAML(name string, data []byte, sink blobSink) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	conv := manifest.Converter{Budget: 10*len(data) + 10000}
	for index := 0; ; index++ {
		var doc yaml.Node
		err := safeDecode(dec, &doc)
		if err == io.EOF {
			return nil
		}
		src := Source{File: name, Index: index}
		if err != nil {
			return &Error{Source: src, Err: fmt.Errorf("invalid YAML: %w", err)}
		}
		root := &doc
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) == 0 {
				continue
			}
			root = root.Content[0]
		}
		src.Line = root.Line
		if root.Kind == 0 || (root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null") {
			continue // an empty document, e.g. a trailing "---"
		}
		if root.Kind != yaml.MappingNode {
			return &Error{Source: src, Err: fmt.Errorf("a catalog blob must be a YAML mapping, got %s", nodeKind(root))}
		}
		if schema, pkg, ok := peek(root); ok && !sink.wants(schema, pkg) {
			continue
		}
		v, err := conv.Value(root)
		if err != nil {
			return &Error{Source: src, Err: err}
		}
		if err := sink.add(src, v.(map[string]any)); err != nil {
			return err
		}
	}
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

// peek finds schema and the package a blob belongs to, from top-level
// scalars that would convert to strings; ok is false when they cannot be
// read that simply, and the full conversion then decides.
func peek(m *yaml.Node) (schema, pkg string, ok bool) {
	var name, pkgField string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			continue
		}
		switch v.ShortTag() {
		case "!!str", "!!int", "!!float":
		default:
			continue // null, booleans…: let the full decode report them
		}
		switch k.Value {
		case "schema":
			schema = v.Value
		case "name":
			name = v.Value
		case "package":
			pkgField = v.Value
		}
	}
	if schema == "" {
		return "", "", false
	}
	if schema == schemaPackage {
		return schema, name, true
	}
	return schema, pkgField, true
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
