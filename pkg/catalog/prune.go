package catalog

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
// from (annotations, displayName and installModes are read).
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
	"minKubeVersion":        true,
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
	var (
		out      []byte
		last     int // data[last:] is not yet copied to out
		stack    []pruneFrame
		dropping bool
		dropCol  int
		block    = -1   // inside a block scalar whose content is indented more than this
		quote    byte   // inside a quoted scalar spanning lines
		itemCol  = -1   // key column of the current properties element
		itemType []byte // its type
		itemIdx  = -1   // its index
		cut      bool
		result   pruned
	)
	drop := func(start, end int) {
		if out == nil {
			out = make([]byte, 0, len(data)/3) // what is usually left
		}
		out = append(out, data[last:start]...)
		last = end
		cut = true
	}
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos + 1
		}
		start := pos
		line := yamltext.TrimEOL(data[pos:end])
		pos = end

		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		rest := line[n:]
		if quote != 0 {
			if i := closingQuote(rest, quote); i >= 0 {
				quote = 0
				if !restIsComment(rest[i+1:]) {
					return nil // a quoted key spanning lines, or worse
				}
			}
			if dropping {
				drop(start, end)
			}
			continue
		}
		blank := len(bytes.TrimSpace(rest)) == 0
		if block >= 0 {
			if blank || n > block {
				if dropping {
					drop(start, end)
				}
				continue
			}
			block = -1
		}
		if len(rest) > 0 && rest[0] == '\t' && !blank {
			return nil // tabs in the indentation
		}
		if blank {
			if dropping {
				drop(start, end)
			}
			continue
		}
		if rest[0] == '#' {
			if dropping && n > dropCol {
				drop(start, end)
			}
			continue
		}
		if n == 0 && (yamltext.IsDocMarker(line, "---") || yamltext.IsDocMarker(line, "...")) {
			if len(bytes.TrimSpace(line[3:])) > 0 {
				return nil
			}
			continue
		}
		// "- " items, then a key or a scalar.
		col := n
		seq := -1
		for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
			if seq < 0 {
				seq = col
			}
			k := 1
			for k < len(rest) && rest[k] == ' ' {
				k++
			}
			col += k
			rest = rest[k:]
		}
		if dropping {
			if n > dropCol || (n == dropCol && seq == n) {
				if !scanValue(rest, col, seq, &block, &quote) {
					return nil
				}
				drop(start, end)
				continue
			}
			dropping = false
		}
		if seq >= 0 {
			for len(stack) > 0 && stack[len(stack)-1].col > seq {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 1 && stack[0].col == 0 && stack[0].key == "properties" {
				itemCol, itemType = -1, nil
				itemIdx++
				if len(rest) > 0 {
					itemCol = col
				}
			}
		}
		key, value, isKey, ok := splitKey(rest)
		if !ok {
			return nil
		}
		if !isKey {
			if !scanValue(rest, col, seq, &block, &quote) {
				return nil
			}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].col >= col {
			stack = stack[:len(stack)-1]
		}
		switch {
		case schema == schemaPackage && col == 0 && string(key) == "icon":
			dropping, dropCol = true, 0
		case dropRelated && schema == schemaBundle && col == 0 && string(key) == "relatedImages":
			dropping, dropCol = true, 0
		case schema == schemaBundle && len(stack) == 2 && stack[0].key == "properties" && stack[0].col == 0 &&
			stack[1].key == "value" && stack[1].col == itemCol && col > itemCol &&
			string(itemType) == propCSVMetadata && csvMetadataDropped[string(key)]:
			dropping, dropCol = true, col
		case schema == schemaBundle && result.examples == nil && string(key) == almExamples && seq < 0 && len(stack) == 3 &&
			stack[0].key == "properties" && stack[0].col == 0 && stack[1].key == "value" && stack[1].col == itemCol &&
			stack[2].key == "annotations" && stack[2].col > itemCol && col > stack[2].col && string(itemType) == propCSVMetadata:
			if text, blockEnd, ok := literalBlock(data, end, value, col); ok {
				drop(start, blockEnd)
				out = append(out, data[start:start+n]...)
				out = append(out, almExamples+": "+examplesPlaceholder+"\n"...)
				result.examples, result.examplesAt = &text, itemIdx
				pos = blockEnd
				continue
			}
		case schema == schemaBundle && seq < 0 && len(stack) == 2 && string(key) == "data" &&
			stack[0].key == "properties" && stack[0].col == 0 && stack[1].key == "value" && stack[1].col == itemCol &&
			col > itemCol && string(itemType) == propBundleObject:
			if text, ok := plainBase64(value); ok {
				drop(start, end)
				out = append(out, data[start:start+n]...)
				out = append(out, "data: "+objectPlaceholder+"\n"...)
				result.objects = append(result.objects, stashedObject{at: itemIdx, data: text})
				continue
			}
		case schema == schemaBundle && seq < 0 && len(stack) == 3 && !keptAnnotation(string(key)) &&
			stack[0].key == "properties" && stack[0].col == 0 && stack[1].key == "value" && stack[1].col == itemCol &&
			stack[2].key == "annotations" && stack[2].col > itemCol && col > stack[2].col && string(itemType) == propCSVMetadata:
			dropping, dropCol = true, col // an annotation a Bundle does not keep
		case len(stack) == 1 && stack[0].key == "properties" && stack[0].col == 0 && col == itemCol && string(key) == "type":
			v, ok := peekValue(value)
			if !ok {
				return nil
			}
			itemType = v
		}
		if !scanValue(value, col, -1, &block, &quote) {
			return nil
		}
		if dropping {
			drop(start, end)
			continue
		}
		stack = append(stack, pruneFrame{col: col, key: string(key)})
	}
	if !cut {
		return nil
	}
	out = append(out, data[last:]...)
	result.data = out
	return &result
}

// literalBlock reads the literal block scalar ("|", "|-" or "|+", no
// indentation indicator) that starts after a key at column col, whose
// header is v, from data[from:]. It returns its value and where it ends, or
// false for anything but plain ASCII text laid out the simple way (the YAML
// parser then reads it).
func literalBlock(data []byte, from int, v []byte, col int) (string, int, bool) {
	h := bytes.TrimRight(v, " ")
	h = bytes.TrimLeft(h, " ")
	var chomp byte
	switch string(h) {
	case "|":
	case "|-":
		chomp = '-'
	case "|+":
		chomp = '+'
	default:
		return "", 0, false
	}
	// First pass: the extent, the indentation, the last line with content.
	var (
		indent  = -1
		end     = from
		lastEnd = -1 // end of the last line with content
		spaces  = 0  // the longest spaces-only line before the first content line
	)
	for end < len(data) {
		e := bytes.IndexByte(data[end:], '\n')
		if e < 0 {
			return "", 0, false // up to the end of the document: let the parser read it
		}
		line := data[end : end+e]
		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		blank := n == len(line)
		if !blank && n <= col {
			break // the next key
		}
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				return "", 0, false // tabs, carriage returns, non-ASCII: the parser's business
			}
		}
		switch {
		case blank && indent < 0:
			spaces = max(spaces, n)
		case !blank && indent < 0:
			indent = n
		case !blank && n < indent:
			return "", 0, false
		}
		if !blank {
			lastEnd = end + e
		}
		end += e + 1
	}
	if indent < 0 || spaces > indent {
		return "", 0, false // no content, or leading spaces-only lines longer than the indentation
	}
	// Second pass: the value.
	var b strings.Builder
	b.Grow(end - from)
	for i := from; i < lastEnd; {
		e := i + bytes.IndexByte(data[i:], '\n')
		if i > from {
			b.WriteByte('\n')
		}
		if e-i > indent {
			b.Write(data[i+indent : e])
		}
		i = e + 1
	}
	switch chomp {
	case 0:
		b.WriteByte('\n')
	case '+':
		b.WriteByte('\n')
		for i := lastEnd + 1; i < end; {
			e := i + bytes.IndexByte(data[i:], '\n')
			if e-i > indent {
				return "", 0, false // trailing spaces-only lines longer than the indentation: the parser's business
			}
			b.WriteByte('\n')
			i = e + 1
		}
	}
	return b.String(), end, true
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
func scanValue(v []byte, col, seq int, block *int, quote *byte) bool {
	v = bytes.TrimLeft(v, " \t")
	if len(v) == 0 || v[0] == '#' {
		return true
	}
	// Lines indented more than a scalar's key (or "- ") belong to the
	// scalar: the content of a block scalar, the continuation of a plain
	// one (anything else there is a syntax error, which the parser reports
	// whether or not prune cut something).
	*block = col
	if seq >= 0 && col > seq {
		*block = seq
	}
	switch v[0] {
	case '&', '*', '!':
		return false
	case '"', '\'':
		if closingQuote(v[1:], v[0]) < 0 {
			*quote = v[0]
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
