package manifest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

// FastDocument parses one document of the plain layout fastDocument takes (text starting on
// line 1), for front doors that cut streams themselves (the KRM function's items): ok is false
// for anything else, which the caller parses with yaml.v3. nodes counts against a Converter's
// alias budget.
func FastDocument(text []byte) (root map[string]any, nodes int, ok bool) {
	r := safeFastDocument(text, 1)
	return r.root, r.nodes, r.ok
}

// safeFastDocument is fastDocument with a panic taken as "not taken" (the caller then asks
// yaml.v3, which reports what is wrong).
func safeFastDocument(text []byte, firstLine int) (r fastResult) {
	defer func() {
		if recover() != nil {
			r = fastResult{}
		}
	}()
	r.root, r.line, r.nodes, r.ok = fastDocument(text, firstLine)
	return r
}

// fastDocument parses one document of the plain layout that generated manifests use, the
// layout of large streams: block mappings and sequences indented with spaces, keys of word
// characters, flow mappings and sequences on one line, plain words, decimal integers, true,
// false, null and double-quoted strings without escapes. It returns what yaml.v3 and the
// Converter make of the document, the line of its root and the number of nodes (for the
// alias budget). ok is false for anything else (comments, anchors, tags, block scalars,
// other scalars, duplicate keys…): the caller then parses the document with yaml.v3.
// FuzzDecodeParallelAgrees holds the two to the same values.
func fastDocument(text []byte, firstLine int) (root map[string]any, rootLine, nodes int, ok bool) {
	if !fastBytes(text) {
		return nil, 0, 0, false
	}
	var p fastParser
	for start, n := 0, 0; start < len(text); n++ {
		raw, end := yamltext.Next(text, start)
		line := yamltext.TrimEOL(raw)
		start = end
		if n == 0 && yamltext.IsDocMarker(line, "---") {
			if !yamltext.IsBlank(line[3:]) {
				return nil, 0, 0, false
			}
			continue
		}
		indent := yamltext.Indent(line)
		if indent == len(line) {
			continue // blank
		}
		p.lines = append(p.lines, fastLine{text: line, indent: indent, num: firstLine + n})
	}
	if len(p.lines) == 0 || p.lines[0].indent != 0 {
		return nil, 0, 0, false
	}
	v, next, ok := p.mapping(0, 0, false, 0)
	if !ok || next != len(p.lines) {
		return nil, 0, 0, false
	}
	return v, p.lines[0].num, p.nodes, true
}

// fastBytes reports text of printable ASCII and newlines only, without the characters of
// what the parser leaves to yaml.v3 (comments, anchors, aliases, tags, block scalars,
// directives, reserved indicators, single quotes, escapes, tabs).
func fastBytes(text []byte) bool {
	for _, c := range text {
		if c == '\n' {
			continue
		}
		if c < 0x20 || c > 0x7e {
			return false
		}
		switch c {
		case '#', '&', '*', '!', '|', '>', '%', '@', '`', '\'', '\\':
			return false
		}
	}
	return true
}

type fastLine struct {
	text   []byte
	indent int
	num    int
}

type fastParser struct {
	lines []fastLine
	nodes int
}

// maxFastDepth keeps the fast parser well inside the Converter's depth limit.
const maxFastDepth = 64

// mapping parses the block mapping whose keys are at column col, starting at line i; inline
// is true when its first key follows "- " on that line (the line's own indent is less).
func (p *fastParser) mapping(i, col int, inline bool, depth int) (map[string]any, int, bool) {
	if depth > maxFastDepth {
		return nil, 0, false
	}
	p.nodes++
	m := map[string]any{}
	for first := true; i < len(p.lines); first = false {
		l := p.lines[i]
		if l.indent != col && !(first && inline) {
			if !first && l.indent < col {
				break
			}
			return nil, 0, false
		}
		text := l.text[col:]
		if isEntry(text) {
			if first {
				return nil, 0, false
			}
			break // a sequence at the parent's column ends this mapping
		}
		key, rest, ok := p.key(text, m)
		if !ok {
			return nil, 0, false
		}
		i++
		var v any
		if len(rest) > 0 {
			if rest[0] != ' ' {
				return nil, 0, false
			}
			v, ok = p.inline(bytes.TrimSpace(rest), depth+1)
		} else {
			v, i, ok = p.nested(i, col, depth+1)
		}
		if !ok {
			return nil, 0, false
		}
		m[key] = v
	}
	return m, i, true
}

// key parses the "key:" that starts a mapping line: a plain key not already in m. rest is
// what follows the colon.
func (p *fastParser) key(text []byte, m map[string]any) (key string, rest []byte, ok bool) {
	colon := bytes.IndexByte(text, ':')
	if colon <= 0 || !plainKey(text[:colon]) {
		return "", nil, false
	}
	key = string(text[:colon])
	if _, dup := m[key]; dup {
		return "", nil, false
	}
	p.nodes++
	return key, text[colon+1:], true
}

// nested parses the value of a "key:" that ends its line (at column col), from line i: a
// block indented further, a sequence at the key's column, or nothing (null).
func (p *fastParser) nested(i, col, depth int) (any, int, bool) {
	if i < len(p.lines) {
		l := p.lines[i]
		switch {
		case l.indent > col && isEntry(l.text[l.indent:]):
			return p.sequence(i, l.indent, false, depth)
		case l.indent > col:
			return p.mapping(i, l.indent, false, depth)
		case l.indent == col && isEntry(l.text[col:]):
			return p.sequence(i, col, false, depth)
		}
	}
	p.nodes++
	return nil, i, true
}

func isEntry(text []byte) bool { return yamltext.IsListEntry(text, 0) }

// sequence parses the block sequence whose "-" are at column col, starting at line i; inline
// is true when its first "-" follows "- " on that line.
func (p *fastParser) sequence(i, col int, inline bool, depth int) ([]any, int, bool) {
	if depth > maxFastDepth {
		return nil, 0, false
	}
	p.nodes++
	l := []any{}
	for first := true; i < len(p.lines); first = false {
		line := p.lines[i]
		if line.indent != col && !(first && inline) {
			if line.indent < col {
				break
			}
			return nil, 0, false
		}
		text := line.text[col:]
		if !isEntry(text) {
			break // a key at this column: the sequence belonged to it
		}
		if len(text) == 1 {
			return nil, 0, false // "-" alone: its item on the next lines
		}
		item := text[2:]
		if len(item) > 0 && item[0] == ' ' {
			return nil, 0, false
		}
		var v any
		var ok bool
		switch {
		case isEntry(item):
			// "- - x": a sequence whose "-" are at col+2, the first on this line
			v, i, ok = p.sequence(i, col+2, true, depth+1)
		case startsMapping(item):
			// "- key: v": a mapping whose keys are at col+2, the first on this line
			v, i, ok = p.mapping(i, col+2, true, depth+1)
		default:
			v, ok = p.inline(bytes.TrimSpace(item), depth+1)
			i++
		}
		if !ok {
			return nil, 0, false
		}
		l = append(l, v)
	}
	return l, i, true
}

// startsMapping reports "key:" followed by a space or the end of the line.
func startsMapping(text []byte) bool {
	colon := bytes.IndexByte(text, ':')
	if colon <= 0 || !plainKey(text[:colon]) {
		return false
	}
	return colon+1 == len(text) || text[colon+1] == ' '
}

// inline parses a value that is the rest of a line: a flow collection or a scalar.
func (p *fastParser) inline(text []byte, depth int) (any, bool) {
	if len(text) == 0 {
		return nil, false
	}
	if text[0] == '{' || text[0] == '[' {
		v, rest, ok := p.flow(text, depth)
		if !ok || len(bytes.TrimSpace(rest)) != 0 {
			return nil, false
		}
		return v, true
	}
	if text[0] == '"' {
		if len(text) < 2 || text[len(text)-1] != '"' || bytes.IndexByte(text[1:len(text)-1], '"') >= 0 {
			return nil, false
		}
		// (no escapes: backslashes send the document to yaml.v3)
		p.nodes++
		return string(text[1 : len(text)-1]), true
	}
	if bytes.Contains(text, []byte(": ")) || bytes.HasSuffix(text, []byte(":")) || bytes.ContainsAny(text, ",[]{}\"") {
		return nil, false
	}
	p.nodes++
	return plainValue(string(text))
}

// flow parses a flow mapping or sequence at the start of text, returning the rest.
func (p *fastParser) flow(text []byte, depth int) (any, []byte, bool) {
	if depth > maxFastDepth {
		return nil, nil, false
	}
	p.nodes++
	opening, closing := text[0], byte('}')
	if opening == '[' {
		closing = ']'
	}
	text = bytes.TrimLeft(text[1:], " ")
	m := map[string]any{}
	l := []any{}
	if len(text) > 0 && text[0] == closing {
		if opening == '{' {
			return m, text[1:], true
		}
		return l, text[1:], true
	}
	for {
		if opening == '{' {
			colon := bytes.Index(text, []byte(": "))
			if colon <= 0 || !plainKey(text[:colon]) {
				return nil, nil, false
			}
			key := string(text[:colon])
			if _, dup := m[key]; dup {
				return nil, nil, false
			}
			p.nodes++
			var v any
			var ok bool
			if v, text, ok = p.flowValue(bytes.TrimLeft(text[colon+2:], " "), depth+1); !ok {
				return nil, nil, false
			}
			m[key] = v
		} else {
			var v any
			var ok bool
			if v, text, ok = p.flowValue(text, depth+1); !ok {
				return nil, nil, false
			}
			l = append(l, v)
		}
		text = bytes.TrimLeft(text, " ")
		switch {
		case len(text) > 0 && text[0] == ',':
			text = bytes.TrimLeft(text[1:], " ")
			if len(text) > 0 && text[0] == closing {
				return nil, nil, false // a trailing comma: let yaml.v3 decide
			}
		case len(text) > 0 && text[0] == closing:
			if opening == '{' {
				return m, text[1:], true
			}
			return l, text[1:], true
		default:
			return nil, nil, false
		}
	}
}

// flowValue parses one value inside a flow collection, returning the rest.
func (p *fastParser) flowValue(text []byte, depth int) (any, []byte, bool) {
	if len(text) == 0 {
		return nil, nil, false
	}
	switch text[0] {
	case '{', '[':
		return p.flow(text, depth)
	case '"':
		end := bytes.IndexByte(text[1:], '"')
		if end < 0 {
			return nil, nil, false
		}
		p.nodes++
		return string(text[1 : 1+end]), text[2+end:], true
	}
	end := bytes.IndexAny(text, ",]}")
	if end < 0 {
		return nil, nil, false
	}
	s := strings.TrimRight(string(text[:end]), " ")
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return nil, nil, false
	}
	p.nodes++
	v, ok := plainValue(s)
	return v, text[end:], ok
}

// plainKey reports a key of word characters that yaml.v3 reads as that string.
func plainKey(k []byte) bool {
	return plainWord(string(k))
}

// plainValue is what yaml.v3 and the Converter make of a plain scalar, for the scalars whose
// reading is certain: text that starts with a letter (see plainText), decimal integers
// without a sign or leading zero (or with "-", but not "-0"), true, false and null.
func plainValue(s string) (any, bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	if plainText(s) {
		return s, true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || digits[0] == '0' && (len(digits) > 1 || len(digits) < len(s)) {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	return json.Number(s), true
}

// plainText reports a plain scalar yaml.v3 reads as that string: a letter, then letters,
// digits, '-', '.', '_', '/' and spaces between words, and not a word YAML reads as
// something else.
func plainText(s string) bool {
	return s != "" && s[len(s)-1] != ' ' && plainScalar(s, true)
}
