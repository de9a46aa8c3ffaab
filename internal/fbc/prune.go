package fbc

import (
	"bytes"
	"strings"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

// Most of a real catalog's bytes are prose no Bundle field comes from: the
// crdDescriptions, description, links, maintainers… of olm.csv.metadata and
// the annotations of the catalog UI
// (12.7 of the 33 MB of the community and certified v4.20 catalogs are
// crdDescriptions alone), and the base64 icon of olm.package. Parsing them
// only to drop them is most of the cost of a load, so prune cuts those
// subtrees out of a YAML document's text before it is parsed.
//
// It reads the block layout line by line (indentation, "- " items, keys,
// block scalars, quoted scalars spanning lines) and gives up (nil: the
// document is parsed as written) on anything it does not follow exactly:
// tabs in indentation, flow collections spanning lines, anchors, aliases,
// tags, quoted or complex keys. A pruned document that does not parse is
// parsed again as written (see workYAML), so pruning never turns valid data
// into an error; what it changes is that the dropped subtrees are not
// checked, as a field the decoder does not read never is.

// csvMetadataDropped are the olm.csv.metadata fields no Bundle field comes
// from (annotations, displayName, installModes and minKubeVersion are read).
var csvMetadataDropped = map[string]bool{
	"apiServiceDefinitions": true,
	"crdDescriptions":       true,
	"description":           true,
	"icon":                  true,
	"keywords":              true,
	"labels":                true,
	"links":                 true,
	"maintainers":           true,
	"maturity":              true,
	"nativeAPIs":            true,
	"provider":              true,
}

type pruneFrame struct {
	col int
	key string
}

// pruned is a document with subtrees cut out, and the alm-examples taken
// out of it (see restore).
type pruned struct {
	data []byte
	// examples, when set, is the alm-examples annotation of the
	// olm.csv.metadata at properties[examplesAt]: its literal block is
	// replaced by a placeholder in data, because the YAML parser reads block
	// scalars a byte at a time and alm-examples are most of what is left.
	examples   *string
	examplesAt int
	// objects are the base64 data of olm.bundle.object properties, taken out likewise (the
	// parser reads their megabytes of plain scalars a byte at a time)
	objects []stashedObject
}

// stashedObject is the data of the olm.bundle.object at properties[at].
type stashedObject struct {
	at   int
	data string
}

// restore puts the alm-examples and bundle objects back into the converted document.
func (p *pruned) restore(m map[string]any) bool {
	props, _ := m["properties"].([]any)
	for _, o := range p.objects {
		if o.at >= len(props) {
			return false
		}
		prop, _ := props[o.at].(map[string]any)
		value, _ := prop["value"].(map[string]any)
		if value["data"] != objectPlaceholder {
			return false
		}
		value["data"] = o.data
	}
	if p.examples == nil {
		return true
	}
	if p.examplesAt >= len(props) {
		return false
	}
	prop, _ := props[p.examplesAt].(map[string]any)
	value, _ := prop["value"].(map[string]any)
	ann, _ := value["annotations"].(map[string]any)
	if ann[almExamples] != examplesPlaceholder {
		return false
	}
	ann[almExamples] = *p.examples
	return true
}

const (
	examplesPlaceholder = "odlm-render:alm-examples"
	objectPlaceholder   = "odlm-render:bundle-object"
)

// plainBase64 returns the value of a line's plain scalar when it is base64 text alone.
func plainBase64(v []byte) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	for _, c := range v {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return "", false
		}
	}
	return string(v), true
}

// prune returns the document without the subtrees described above (and the
// relatedImages of a bundle when dropRelated is set: the Builder does not
// keep them), or nil when nothing was cut or the layout is beyond it.
func prune(data []byte, schema string, dropRelated bool) *pruned {
	if schema != schemaBundle && schema != schemaPackage {
		return nil
	}
	p := pruner{data: data, schema: schema, dropRelated: dropRelated, block: -1, item: propertyItem{col: -1, idx: -1}}
	var frames [8]pruneFrame // the stack's first array: documents nest a few levels
	p.stack = frames[:0]
	for pos := 0; pos < len(data); {
		next, ok := p.line(pos)
		if !ok {
			return nil
		}
		pos = next
	}
	if !p.cut {
		return nil
	}
	p.out = append(p.out, data[p.last:]...)
	r := p.result
	r.data = p.out
	return &r
}

// pruner is what prune carries from one line of a document to the next.
type pruner struct {
	data        []byte
	schema      string
	dropRelated bool

	// the text kept: out, then data[last:]; cut once something was left out
	out  []byte
	last int
	cut  bool

	stack []pruneFrame // the keys the line is nested in
	// dropping: the lines of a subtree whose key is at dropCol are being left out
	dropping bool
	dropCol  int
	// a scalar that goes on over the next lines: the lines indented more
	// than block (-1: none) belong to it, or those up to its closing quote
	block int
	quote byte

	item   propertyItem // the properties element the line is in
	result pruned
}

// propertyItem is an element of a bundle's properties.
type propertyItem struct {
	col int    // the column of its keys (-1: none)
	typ []byte // its type
	idx int    // its index
}

// pruneLine is a line of the document.
type pruneLine struct {
	start, end int    // data[start:end] is the line with its line break
	n          int    // its indentation
	rest       []byte // what follows the indentation (then the "- " items), without the line break
	col        int    // the column of rest
	seq        int    // the column of its first "- " (-1: none)
}

func (p *pruner) readLine(pos int) pruneLine {
	end := bytes.IndexByte(p.data[pos:], '\n')
	if end < 0 {
		end = len(p.data)
	} else {
		end += pos + 1
	}
	line := yamltext.TrimEOL(p.data[pos:end])
	n := yamltext.Indent(line)
	return pruneLine{start: pos, end: end, n: n, rest: line[n:], col: n, seq: -1}
}

// items moves past the "- " items that start the line.
func (l *pruneLine) items() {
	for len(l.rest) > 0 && l.rest[0] == '-' && (len(l.rest) == 1 || l.rest[1] == ' ') {
		if l.seq < 0 {
			l.seq = l.col
		}
		k := 1 + yamltext.Indent(l.rest[1:])
		l.col += k
		l.rest = l.rest[k:]
	}
}

// line reads the line at pos; it returns where the next line starts, and
// false when the layout is beyond prune.
func (p *pruner) line(pos int) (int, bool) {
	l := p.readLine(pos)
	if p.quote != 0 {
		return l.end, p.inQuoted(l)
	}
	blank := len(bytes.TrimSpace(l.rest)) == 0
	if p.block >= 0 {
		if blank || l.n > p.block {
			p.dropIf(p.dropping, l)
			return l.end, true
		}
		p.block = -1
	}
	switch {
	case blank:
		p.dropIf(p.dropping, l)
	case l.rest[0] == '\t':
		return 0, false // tabs in the indentation
	case l.rest[0] == '#':
		p.dropIf(p.dropping && l.n > p.dropCol, l)
	case l.n == 0 && (yamltext.IsDocMarker(l.rest, "---") || yamltext.IsDocMarker(l.rest, "...")):
		return l.end, len(bytes.TrimSpace(l.rest[3:])) == 0
	default:
		return p.node(l)
	}
	return l.end, true
}

// inQuoted reads a line of a quoted scalar that started on an earlier line.
func (p *pruner) inQuoted(l pruneLine) bool {
	if i := closingQuote(l.rest, p.quote); i >= 0 {
		p.quote = 0
		if !restIsComment(l.rest[i+1:]) {
			return false // a quoted key spanning lines, or worse
		}
	}
	p.dropIf(p.dropping, l)
	return true
}

// node reads a line with content: "- " items, then a key or a scalar.
func (p *pruner) node(l pruneLine) (int, bool) {
	l.items()
	if p.dropping {
		if l.n > p.dropCol || (l.n == p.dropCol && l.seq == l.n) {
			p.drop(l.start, l.end)
			return l.end, p.scanValue(l.rest, l.col, l.seq)
		}
		p.dropping = false
	}
	if l.seq >= 0 {
		p.enterItem(l)
	}
	key, value, isKey, ok := splitKey(l.rest)
	switch {
	case !ok:
		return 0, false
	case !isKey:
		return l.end, p.scanValue(l.rest, l.col, l.seq)
	}
	for len(p.stack) > 0 && p.stack[len(p.stack)-1].col >= l.col {
		p.stack = p.stack[:len(p.stack)-1]
	}
	if next, replaced, ok := p.act(l, key, value); replaced || !ok {
		return next, ok
	}
	if !p.scanValue(value, l.col, -1) {
		return 0, false
	}
	if p.dropping {
		p.drop(l.start, l.end)
	} else {
		p.stack = append(p.stack, pruneFrame{col: l.col, key: string(key)})
	}
	return l.end, true
}

// enterItem closes what a "- " item ends; an item of the root's properties
// is the next properties element.
func (p *pruner) enterItem(l pruneLine) {
	for len(p.stack) > 0 && p.stack[len(p.stack)-1].col > l.seq {
		p.stack = p.stack[:len(p.stack)-1]
	}
	if len(p.stack) == 1 && p.stack[0].col == 0 && p.stack[0].key == "properties" {
		p.item = propertyItem{col: -1, idx: p.item.idx + 1}
		if len(l.rest) > 0 {
			p.item.col = l.col
		}
	}
}

// keyPlace is where a key is, for what prune does with it.
type keyPlace int

const (
	placeOther      keyPlace = iota
	placeRoot                // a key of the document
	placeProperty            // a key of a properties element (type, value)
	placeValue               // a key of a property's value
	placeAnnotation          // a key of a property value's annotations
)

// place is where a key at column col is (the stack holds the keys it is
// nested in, all at lower columns).
func (p *pruner) place(col int) keyPlace {
	s := p.stack
	switch {
	case col == 0:
		return placeRoot
	case len(s) == 0 || s[0].col != 0 || s[0].key != "properties":
		return placeOther
	case len(s) == 1 && col == p.item.col:
		return placeProperty
	case len(s) < 2 || s[1].key != "value" || s[1].col != p.item.col:
		return placeOther
	case len(s) == 2:
		return placeValue
	case len(s) == 3 && s[2].key == "annotations":
		return placeAnnotation
	}
	return placeOther
}

// act does what prune does with a key: starts dropping its subtree, notes a
// property's type, or replaces its line by a placeholder (replaced: then
// next is where the following line starts).
func (p *pruner) act(l pruneLine, key, value []byte) (next int, replaced, ok bool) {
	bundle := p.schema == schemaBundle
	csvMetadata := bundle && string(p.item.typ) == propCSVMetadata
	switch p.place(l.col) {
	case placeRoot:
		if p.schema == schemaPackage && string(key) == "icon" || p.dropRelated && bundle && string(key) == "relatedImages" {
			p.dropping, p.dropCol = true, 0
		}
	case placeProperty:
		if string(key) == "type" {
			p.item.typ, ok = peekValue(value)
			return 0, false, ok
		}
	case placeValue:
		if csvMetadata && csvMetadataDropped[string(key)] {
			p.dropping, p.dropCol = true, l.col
		} else if bundle && l.seq < 0 && string(key) == "data" && string(p.item.typ) == propBundleObject {
			return p.stashObject(l, value)
		}
	case placeAnnotation:
		if !csvMetadata || l.seq >= 0 {
			break
		}
		if string(key) == almExamples && p.result.examples == nil {
			return p.stashExamples(l, value)
		}
		if !keptAnnotation(string(key)) {
			p.dropping, p.dropCol = true, l.col // an annotation a Bundle does not keep
		}
	}
	return 0, false, true
}

// stashExamples takes out the alm-examples annotation when it is a literal
// block prune reads.
func (p *pruner) stashExamples(l pruneLine, value []byte) (int, bool, bool) {
	text, blockEnd, ok := literalBlock(p.data, l.end, value, l.col)
	if !ok {
		return 0, false, true
	}
	p.replace(l, blockEnd, almExamples+": "+examplesPlaceholder+"\n")
	p.result.examples, p.result.examplesAt = &text, p.item.idx
	return blockEnd, true, true
}

// stashObject takes out the data of an olm.bundle.object when it is base64 text.
func (p *pruner) stashObject(l pruneLine, value []byte) (int, bool, bool) {
	text, ok := plainBase64(value)
	if !ok {
		return 0, false, true
	}
	p.replace(l, l.end, "data: "+objectPlaceholder+"\n")
	p.result.objects = append(p.result.objects, stashedObject{at: p.item.idx, data: text})
	return l.end, true, true
}

// drop leaves data[start:end] out.
func (p *pruner) drop(start, end int) {
	if p.out == nil {
		p.out = make([]byte, 0, len(p.data)/3) // what is usually left
	}
	p.out = append(p.out, p.data[p.last:start]...)
	p.last = end
	p.cut = true
}

func (p *pruner) dropIf(cond bool, l pruneLine) {
	if cond {
		p.drop(l.start, l.end)
	}
}

// replace leaves out the line l and what follows up to end, writing the
// line's indentation and text instead.
func (p *pruner) replace(l pruneLine, end int, text string) {
	p.drop(l.start, end)
	p.out = append(p.out, p.data[l.start:l.start+l.n]...)
	p.out = append(p.out, text...)
}

// literalBlock reads the literal block scalar ("|", "|-" or "|+", no
// indentation indicator) that starts after a key at column col, whose
// header is v, from data[from:]. It returns its value and where it ends, or
// false for anything but plain ASCII text laid out the simple way (the YAML
// parser then reads it).
func literalBlock(data []byte, from int, v []byte, col int) (string, int, bool) {
	var chomp byte
	switch string(bytes.Trim(v, " ")) {
	case "|":
	case "|-":
		chomp = '-'
	case "|+":
		chomp = '+'
	default:
		return "", 0, false
	}
	x, ok := literalExtent(data, from, col)
	if !ok {
		return "", 0, false
	}
	text, ok := x.text(data, chomp)
	return text, x.end, ok
}

// blockExtent is where a literal block's lines are.
type blockExtent struct {
	from, end int // data[from:end] are its lines
	indent    int // the indentation of its content
	lastEnd   int // the end of its last line with content
}

// literalExtent finds the lines of a literal block whose key is at column
// col: false when one is not plain ASCII, when the block goes on to the end
// of the document, or when its indentation is not the simple kind.
func literalExtent(data []byte, from, col int) (blockExtent, bool) {
	x := blockExtent{from: from, end: from, indent: -1, lastEnd: -1}
	spaces := 0 // the longest spaces-only line before the first content line
	for x.end < len(data) {
		e := bytes.IndexByte(data[x.end:], '\n')
		if e < 0 {
			return x, false // up to the end of the document: let the parser read it
		}
		line := data[x.end : x.end+e]
		n := yamltext.Indent(line)
		blank := n == len(line)
		if !blank && n <= col {
			break // the next key
		}
		if !printableASCII(line) {
			return x, false // tabs, carriage returns, non-ASCII: the parser's business
		}
		switch {
		case blank && x.indent < 0:
			spaces = max(spaces, n)
		case !blank && x.indent < 0:
			x.indent = n
		case !blank && n < x.indent:
			return x, false
		}
		if !blank {
			x.lastEnd = x.end + e
		}
		x.end += e + 1
	}
	return x, x.indent >= 0 && spaces <= x.indent // else no content, or leading spaces-only lines longer than the indentation
}

func printableASCII(line []byte) bool {
	for _, c := range line {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// text is the value of the block, chomped as chomp says (0: clip).
func (x blockExtent) text(data []byte, chomp byte) (string, bool) {
	var b strings.Builder
	b.Grow(x.end - x.from)
	for i := x.from; i < x.lastEnd; {
		e := i + bytes.IndexByte(data[i:], '\n')
		if i > x.from {
			b.WriteByte('\n')
		}
		if e-i > x.indent {
			b.Write(data[i+x.indent : e])
		}
		i = e + 1
	}
	if chomp == '-' {
		return b.String(), true
	}
	b.WriteByte('\n')
	if chomp == '+' {
		for i := x.lastEnd + 1; i < x.end; {
			e := i + bytes.IndexByte(data[i:], '\n')
			if e-i > x.indent {
				return "", false // trailing spaces-only lines longer than the indentation: the parser's business
			}
			b.WriteByte('\n')
			i = e + 1
		}
	}
	return b.String(), true
}

// splitKey splits "key: value" (value may be empty); isKey is false for a
// plain scalar line, ok false for keys prune does not read.
func splitKey(rest []byte) (key, value []byte, isKey, ok bool) {
	if len(rest) == 0 {
		return nil, nil, false, true
	}
	switch rest[0] {
	case '"', '\'':
		i := closingQuote(rest[1:], rest[0])
		if i >= 0 {
			after := bytes.TrimLeft(rest[i+2:], " ")
			if len(after) > 0 && after[0] == ':' {
				return nil, nil, false, false // a quoted key
			}
		}
		return nil, rest, false, true
	case '?', '&', '*', '!', '[', '{', '|', '>', '#', '%', '@', '`':
		if rest[0] == '?' && (len(rest) == 1 || rest[1] == ' ') {
			return nil, nil, false, false // a complex key
		}
		return nil, rest, false, true
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ':':
			if i+1 == len(rest) || rest[i+1] == ' ' || rest[i+1] == '\t' {
				return rest[:i], rest[i+1:], true, true
			}
		case '#':
			if i > 0 && (rest[i-1] == ' ' || rest[i-1] == '\t') {
				return nil, rest, false, true // a comment starts
			}
		}
	}
	return nil, rest, false, true
}

// scanValue looks at the value of a line (after its key or "- "), and
// records a block scalar or a quoted scalar that goes on over the next
// lines. col is the key's column, seq the "- " column when the value is an
// item of a sequence (-1 otherwise). False for what prune does not follow.
func (p *pruner) scanValue(v []byte, col, seq int) bool {
	v = bytes.TrimLeft(v, " \t")
	if len(v) == 0 || v[0] == '#' {
		return true
	}
	// Lines indented more than a scalar's key (or "- ") belong to the
	// scalar: the content of a block scalar, the continuation of a plain
	// one (anything else there is a syntax error, which the parser reports
	// whether or not prune cut something).
	p.block = col
	if seq >= 0 && col > seq {
		p.block = seq
	}
	switch v[0] {
	case '&', '*', '!':
		return false
	case '"', '\'':
		if closingQuote(v[1:], v[0]) < 0 {
			p.quote = v[0]
		}
	case '[', '{':
		return flowClosed(v)
	}
	return true
}

// closingQuote finds the quote that ends a scalar opened before s (-1 when
// the line does not end it).
func closingQuote(s []byte, q byte) int {
	for i := 0; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q:
			if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i
		}
	}
	return -1
}

// flowClosed tells whether a flow collection ends on its line.
func flowClosed(v []byte) bool {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return restIsComment(v[i+1:])
			}
		case '"', '\'':
			j := closingQuote(v[i+1:], v[i])
			if j < 0 {
				return false
			}
			i += j + 1
		case '&', '*', '!':
			return false
		}
	}
	return false
}
