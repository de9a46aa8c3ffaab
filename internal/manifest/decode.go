package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// SyntaxError is a document that cannot be parsed; it carries the file and line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// Decode parses a YAML or JSON stream into mapping documents. Empty documents are skipped;
// a document that is not a mapping is an error. Objects of kind List (as `kubectl get -o
// yaml` writes them) are flattened into their items.
func Decode(file string, data []byte) ([]*Object, error) {
	if objs, ok := decodeParallel(file, data, parallelMinBytes); ok {
		return objs, nil
	}
	objs, err := decodeSequential(file, data)
	if err != nil {
		return nil, templateError(file, data, err)
	}
	return objs, nil
}

// decodeSequential decodes a stream a document at a time (the reference decodeParallel
// must agree with).
func decodeSequential(file string, data []byte) ([]*Object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	conv := Converter{Budget: 10*len(data) + 10000}
	lines := lineIndex{data: data}
	var out []*Object
	for index := 0; ; index++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, YAMLError(file, data, err)
		}
		if out, err = appendDocument(out, file, index, &doc, &conv, &lines); err != nil {
			return nil, err
		}
	}
}

// appendDocument appends the objects of one parsed document (none when it is empty, its
// items when it is a List).
func appendDocument(out []*Object, file string, index int, doc *yaml.Node, conv *Converter, lines *lineIndex) ([]*Object, error) {
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return out, nil
	}
	v, err := conv.Value(root)
	if err != nil {
		return nil, &SyntaxError{File: file, Line: ErrorLine(err, root.Line), Msg: err.Error()}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &SyntaxError{File: file, Line: root.Line, Msg: fmt.Sprintf("document %d is a %s, not a mapping", index, kindName(root))}
	}
	obj := &Object{Map: m, Source: Source{File: file, Index: index, Line: root.Line, doc: lines.doc(root.Line)}}
	items, isList, err := listItems(obj, root)
	if err != nil {
		return nil, err
	}
	if isList {
		return append(out, items...), nil
	}
	return append(out, obj), nil
}

// listItems flattens a v1 List document (root is its node) into its items.
func listItems(obj *Object, root *yaml.Node) ([]*Object, bool, error) {
	if !isListObject(obj) {
		return nil, false, nil
	}
	raw := obj.Map["items"].([]any)
	itemsNode := childNode(root, PathStep{Key: "items"})
	out := make([]*Object, 0, len(raw))
	for i, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, true, &SyntaxError{File: obj.Source.File, Line: obj.Source.LineOf(Field("items", i)), Msg: fmt.Sprintf("items[%d] is not a mapping", i)}
		}
		src := obj.Source
		src.item = i + 1
		if itemsNode != nil && i < len(itemsNode.Content) {
			src.Line = itemsNode.Content[i].Line
		}
		out = append(out, &Object{Map: m, Source: src})
	}
	return out, true, nil
}

// lineIndex finds where lines start in a file's bytes, for docText.
type lineIndex struct {
	data   []byte
	starts []int // offsets of line starts, computed on first use
}

// doc is the docText of the document whose root is on line (1-based).
func (l *lineIndex) doc(line int) *docText {
	if l.starts == nil {
		l.starts = append(l.starts, 0)
		for i, b := range l.data {
			if b == '\n' && i+1 < len(l.data) {
				l.starts = append(l.starts, i+1)
			}
		}
	}
	if line < 1 || line > len(l.starts) {
		return nil
	}
	return &docText{data: l.data, offset: l.starts[line-1], line: line}
}

// unknownAnchorRe is the one yaml.v3 error that carries no line.
var unknownAnchorRe = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// YAMLError turns a yaml.v3 error on data (read from file) into a SyntaxError with the
// line it names, or the line of an unknown alias.
func YAMLError(file string, data []byte, err error) error {
	msg := err.Error()
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = m[2]
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
	}
	if m := unknownAnchorRe.FindStringSubmatch(msg); m != nil && line == 0 {
		line = aliasLine(data, m[1])
	}
	return &SyntaxError{File: file, Line: line, Msg: "invalid YAML/JSON: " + msg}
}

// aliasLine is the line of the first alias *name in data (0 when there is none): where
// yaml.v3 stopped on an unknown anchor.
func aliasLine(data []byte, name string) int {
	alias := []byte("*" + name)
	for i, l := range bytes.Split(data, []byte("\n")) {
		for rest := l; ; {
			j := bytes.Index(rest, alias)
			if j < 0 {
				break
			}
			end := rest[j+len(alias):]
			if len(end) == 0 || strings.ContainsRune(" \t\r,]}", rune(end[0])) {
				return i + 1
			}
			rest = rest[j+1:]
		}
	}
	return 0
}

type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// ErrorLine is the line a Converter error points at, or fallback when it names none.
func ErrorLine(err error, fallback int) int {
	var le *lineError
	if errors.As(err, &le) && le.line > 0 {
		return le.line
	}
	return fallback
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	default:
		return "non-mapping node"
	}
}

// NodeValue converts a parsed YAML node into the value tree. Numbers keep their exact value
// as json.Number; values JSON cannot hold (.inf, .nan, non-scalar keys) are errors. Aliases
// are expanded within a budget, so that a small hostile document ("billion laughs") or an
// alias that refers to itself is an error rather than a hang.
func NodeValue(n *yaml.Node) (any, error) {
	c := Converter{Budget: maxNodes}
	return c.Value(n)
}

const (
	maxDepth = 1000
	// maxNodes bounds the values one document may expand to (aliases included).
	maxNodes = 10_000_000
)

// Converter converts YAML nodes into value trees. Budget bounds the number of values it
// produces over all its calls (aliases expanded); a reader of a stream shares one
// Converter across documents, with a budget proportional to the stream's size.
type Converter struct {
	Budget int
	active map[*yaml.Node]bool // anchors being expanded
}

// Spend counts nodes converted without the Converter (manifest.FastDocument's) against its
// alias budget; false once the budget is spent, as Value would fail.
func (c *Converter) Spend(nodes int) bool {
	c.Budget -= nodes
	return c.Budget >= 0
}

// Value converts one node (see NodeValue).
func (c *Converter) Value(n *yaml.Node) (any, error) { return c.value(n, 0) }

// value converts a node at depth (the budget and depth checks), then by its kind.
func (c *Converter) value(n *yaml.Node, depth int) (any, error) {
	c.Budget--
	if c.Budget < 0 {
		return nil, &lineError{n.Line, "document too large after alias expansion"}
	}
	if depth > maxDepth {
		return nil, &lineError{n.Line, fmt.Sprintf("document nested deeper than %d levels", maxDepth)}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		return c.alias(n, depth)
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.SequenceNode:
		return c.sequence(n, depth)
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, &lineError{n.Line, "unsupported YAML node"}
}

// alias expands an alias, refusing one that refers to a node being expanded.
func (c *Converter) alias(n *yaml.Node, depth int) (any, error) {
	if n.Alias == nil {
		return nil, &lineError{n.Line, "unknown alias"}
	}
	if c.active[n.Alias] {
		return nil, &lineError{n.Line, fmt.Sprintf("alias %q refers to itself", n.Value)}
	}
	if c.active == nil {
		c.active = map[*yaml.Node]bool{}
	}
	c.active[n.Alias] = true
	defer delete(c.active, n.Alias)
	return c.value(n.Alias, depth+1)
}

// mapping converts a mapping of string-like keys, without duplicates; merge keys (<<) fill
// the keys the mapping does not set.
func (c *Converter) mapping(n *yaml.Node, depth int) (any, error) {
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			if err := c.mergeInto(m, val, depth); err != nil {
				return nil, err
			}
			continue
		}
		if k.Kind != yaml.ScalarNode || !scalarKeyTags[k.ShortTag()] {
			return nil, &lineError{k.Line, "mapping keys must be strings"}
		}
		if _, dup := m[k.Value]; dup {
			return nil, &lineError{k.Line, fmt.Sprintf("duplicate key %q", k.Value)}
		}
		v, err := c.value(val, depth+1)
		if err != nil {
			return nil, err
		}
		m[k.Value] = v
	}
	return m, nil
}

func (c *Converter) sequence(n *yaml.Node, depth int) (any, error) {
	l := make([]any, 0, len(n.Content))
	for _, e := range n.Content {
		v, err := c.value(e, depth+1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	return l, nil
}

// scalarKeyTags are the key types that JSON can hold (as their text).
var scalarKeyTags = map[string]bool{"!!str": true, "!!int": true, "!!bool": true, "!!float": true, "!!null": true}

func (c *Converter) mergeInto(m map[string]any, val *yaml.Node, depth int) error {
	v, err := c.value(val, depth+1)
	if err != nil {
		return err
	}
	var sources []map[string]any
	switch v := v.(type) {
	case map[string]any:
		sources = append(sources, v)
	case []any:
		for _, e := range v {
			if mm, ok := e.(map[string]any); ok {
				sources = append(sources, mm)
			}
		}
	default:
		return &lineError{val.Line, "merge key value must be a mapping"}
	}
	for _, s := range sources {
		for k, x := range s {
			if _, set := m[k]; !set {
				m[k] = x
			}
		}
	}
	return nil
}

func scalarValue(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &lineError{n.Line, err.Error()}
		}
		return b, nil
	case "!!int":
		return intNumber(n)
	case "!!float":
		return floatNumber(n)
	case "!!str":
		if n.Style == 0 && yamlwrite.FloatSyntax(n.Value) {
			// a plain number too large for a float64: yaml.v3 reads it as a string, other
			// readers of the output as a number or an error (as .inf is refused)
			return nil, &lineError{n.Line, fmt.Sprintf("number %q cannot be represented in JSON", n.Value)}
		}
		return n.Value, nil
	default:
		return n.Value, nil
	}
}

func intNumber(n *yaml.Node) (any, error) {
	text := strings.ReplaceAll(n.Value, "_", "")
	neg := strings.HasPrefix(text, "-")
	body := strings.TrimLeft(text, "+-")
	base := 10
	switch {
	case strings.HasPrefix(body, "0x"), strings.HasPrefix(body, "0X"):
		base, body = 16, body[2:]
	case strings.HasPrefix(body, "0o"), strings.HasPrefix(body, "0O"):
		base, body = 8, body[2:]
	case strings.HasPrefix(body, "0b"), strings.HasPrefix(body, "0B"):
		base, body = 2, body[2:]
	case len(body) > 1 && body[0] == '0':
		base = 8 // YAML 1.1 octal, as yaml.v3 resolves it
	}
	i, ok := new(big.Int).SetString(body, base)
	if !ok {
		return n.Value, nil
	}
	if neg {
		i.Neg(i)
	}
	return representable(n, i.String())
}

var jsonNumberRe = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func floatNumber(n *yaml.Node) (any, error) {
	text := strings.ReplaceAll(n.Value, "_", "")
	text = strings.TrimPrefix(text, "+")
	if jsonNumberRe.MatchString(text) {
		return representable(n, text)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &lineError{n.Line, fmt.Sprintf("number %q cannot be represented in JSON", n.Value)}
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// representable refuses a number JSON's syntax allows but no decoder of the API server can
// hold (1e999, a 400-digit integer: both overflow a float64), as .inf is refused.
func representable(n *yaml.Node, text string) (any, error) {
	if f, err := strconv.ParseFloat(text, 64); err != nil && math.IsInf(f, 0) {
		return nil, &lineError{n.Line, fmt.Sprintf("number %q cannot be represented in JSON", n.Value)}
	}
	return json.Number(text), nil
}

// DecodeJSONValue decodes one JSON value with exact numbers.
func DecodeJSONValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}
