package fbc

// The YAML peek: what a catalog document is (schema, package, name) read from its first
// lines, without parsing it.

import (
	"bytes"
	"unicode/utf8"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

// yamlPeek reads the unindented "key: value" lines of a document. It gives
// up (ok false) on anything it does not read exactly as the YAML parser
// would: an indented root, flow collections, anchors, aliases, tags,
// quoting with escapes, values that would not decode to the same string,
// duplicate keys.
type yamlPeek struct {
	failed, sawKey bool
	lastKey        string
	seen           uint8
	p              peekResult
}

const (
	seenSchema = 1 << iota
	seenPackage
	seenName
	seenKind
	seenAPIVersion
)

func (p *yamlPeek) fail() { p.failed = true }

func (p *yamlPeek) result() peekResult {
	if p.failed || !p.sawKey {
		return peekResult{}
	}
	r := p.p
	r.ok = true
	return r
}

// line reads a line of the document (without its line break).
func (p *yamlPeek) line(l []byte) {
	if p.failed || len(l) == 0 {
		return
	}
	switch c := l[0]; {
	case c == ' ' || c == '\t':
		if !p.sawKey && yamltext.HasContent(l) {
			p.fail() // an indented root
		}
	case c == '#', c == '%' && !p.sawKey:
	case c == '-' && (len(l) == 1 || l[1] == ' '):
		p.item(l)
	case isKeyStart(c):
		p.keyLine(l)
	default:
		p.fail()
	}
}

// item reads an element of a sequence that is the value of the last key
// (written unindented): only its shape matters, a quoted scalar or a flow
// collection must end on the line.
func (p *yamlPeek) item(l []byte) {
	if !p.sawKey {
		p.fail()
		return
	}
	rest := l
	for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
		rest = bytes.TrimLeft(rest[1:], " ")
	}
	_, value, isKey, ok := splitKey(rest)
	if !isKey {
		value = rest
	}
	if _, vok := peekValue(value); !ok || !vok {
		p.fail()
	}
}

// keyLine reads a "key: value" line.
func (p *yamlPeek) keyLine(l []byte) {
	i := keyEnd(l)
	if i <= 0 {
		p.fail()
		return
	}
	key := l[:i]
	for _, c := range key {
		if !isKeyByte(c) {
			p.fail()
			return
		}
	}
	p.sawKey = true
	p.lastKey = string(key)
	val, ok := peekValue(l[i+1:])
	if !ok {
		p.fail()
		return
	}
	bit, dst := p.p.field(key)
	if dst == nil {
		return
	}
	if p.seen&bit != 0 || (val == nil && bit == seenSchema) {
		p.fail() // a duplicate key, or a schema that is not a string: the decoder reports it
		return
	}
	p.seen |= bit
	if val != nil {
		*dst = string(val) // else "": not read, decide lets the decoder look
	}
}

// keyEnd is the index of the ":" that ends a line's key (followed by a
// blank or the end of the line), -1 if none.
func keyEnd(l []byte) int {
	i := bytes.IndexByte(l, ':')
	for i >= 0 && i+1 < len(l) && l[i+1] != ' ' && l[i+1] != '\t' {
		j := bytes.IndexByte(l[i+1:], ':')
		if j < 0 {
			return -1
		}
		i += 1 + j
	}
	return i
}

// field is where the peek keeps the string of a top-level key, and its bit
// in a set of keys seen (nil for the keys it does not read).
func (p *peekResult) field(key []byte) (uint8, *string) {
	switch string(key) {
	case "schema":
		return seenSchema, &p.schema
	case "package":
		return seenPackage, &p.pkg
	case "name":
		return seenName, &p.name
	case "kind":
		return seenKind, &p.kind
	case "apiVersion":
		return seenAPIVersion, &p.apiVersion
	}
	return 0, nil
}

// snapshotStart tells whether line (just handed to line) is the
// "  packages:" line of a CatalogSnapshot written by WriteSnapshot.
func (p *yamlPeek) snapshotStart(line []byte) bool {
	return !p.failed && p.lastKey == "spec" && string(line) == "  packages:" &&
		p.p.kind == SnapshotKind && p.p.apiVersion == SnapshotAPIVersion && p.seen&seenSchema == 0
}

func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isKeyByte(c byte) bool { return isKeyStart(c) || c == '.' || c == '-' || c == '/' }

// looksNumeric: what the YAML parser may resolve to a number.
func looksNumeric(v []byte) bool {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	switch {
	case len(v) == 0:
		return false
	case v[0] >= '0' && v[0] <= '9':
		return true
	case v[0] == '.' && len(v) > 1:
		return v[1] >= '0' && v[1] <= '9' || v[1] == 'i' || v[1] == 'I' || v[1] == 'n' || v[1] == 'N'
	}
	return false
}

// canonicalNumber: a number whose decoded text is the written text.
func canonicalNumber(v []byte) bool {
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 || (v[0] == '0' && i > 1) {
		return false
	}
	if i == len(v) {
		return true
	}
	if v[i] != '.' || i+1 == len(v) {
		return false
	}
	for i++; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// peekValue reads the value part of an unindented "key:" line. It returns
// (nil, true) for values that are fine for the structure but not a plain
// string (a nested block, a block scalar, a number the decoder rewrites…),
// and ok false when the line is beyond what the peek reads.
func peekValue(v []byte) (val []byte, ok bool) {
	v = bytes.TrimLeft(v, " \t")
	if len(v) == 0 || v[0] == '#' {
		return nil, true
	}
	switch v[0] {
	case '|', '>':
		return nil, true
	case '[', '{', '&', '*', '!', '@', '`', '%':
		return nil, false
	case '"':
		return peekDoubleQuoted(v)
	case '\'':
		return peekSingleQuoted(v)
	}
	return peekPlain(v)
}

// peekDoubleQuoted reads a double-quoted scalar without escapes that ends on its line.
func peekDoubleQuoted(v []byte) ([]byte, bool) {
	end := bytes.IndexAny(v[1:], "\"\\")
	if end < 0 || v[1+end] == '\\' {
		return nil, false // escapes: let the parser decode them
	}
	end++
	if !restIsComment(v[end+1:]) {
		return nil, false
	}
	return v[1:end], true
}

// peekSingleQuoted reads a single-quoted scalar that ends on its line.
func peekSingleQuoted(v []byte) ([]byte, bool) {
	var out []byte
	for i := 1; i < len(v); i++ {
		if v[i] != '\'' {
			out = append(out, v[i])
			continue
		}
		if i+1 < len(v) && v[i+1] == '\'' {
			out = append(out, '\'')
			i++
			continue
		}
		if !restIsComment(v[i+1:]) {
			return nil, false
		}
		if out == nil {
			out = []byte{}
		}
		return out, true
	}
	return nil, false
}

// peekPlain reads a plain scalar; " #" starts a comment.
func peekPlain(v []byte) ([]byte, bool) {
	if i := bytes.Index(v, []byte(" #")); i >= 0 {
		v = v[:i]
	}
	if i := bytes.Index(v, []byte("\t#")); i >= 0 {
		v = v[:i]
	}
	v = bytes.TrimRight(v, " \t")
	if bytes.Contains(v, []byte(": ")) || !utf8.Valid(v) {
		return nil, false
	}
	switch string(v) {
	case "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE":
		return nil, true
	}
	if looksNumeric(v) && !canonicalNumber(v) {
		return nil, true
	}
	return v, true
}

func restIsComment(b []byte) bool {
	b = bytes.TrimLeft(b, " \t")
	return len(b) == 0 || b[0] == '#'
}
