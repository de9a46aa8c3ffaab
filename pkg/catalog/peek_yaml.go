package catalog

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

func (p *yamlPeek) line(l []byte) {
	if p.failed || len(l) == 0 {
		return
	}
	switch c := l[0]; {
	case c == ' ' || c == '\t':
		if !p.sawKey && yamltext.HasContent(l) {
			p.fail() // an indented root
		}
		return
	case c == '#':
		return
	case c == '%' && !p.sawKey:
		return
	case c == '-' && (len(l) == 1 || l[1] == ' '):
		// An element of a sequence that is the value of the last key
		// (written unindented): only its shape matters, a quoted scalar
		// or a flow collection must end on the line.
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
		return
	case !isKeyStart(c):
		p.fail()
		return
	}
	i := bytes.IndexByte(l, ':')
	for i >= 0 && i+1 < len(l) && l[i+1] != ' ' && l[i+1] != '\t' {
		j := bytes.IndexByte(l[i+1:], ':')
		if j < 0 {
			i = -1
			break
		}
		i += 1 + j
	}
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
	var bit uint8
	var dst *string
	switch p.lastKey {
	case "schema":
		bit, dst = seenSchema, &p.p.schema
	case "package":
		bit, dst = seenPackage, &p.p.pkg
	case "name":
		bit, dst = seenName, &p.p.name
	case "kind":
		bit, dst = seenKind, &p.p.kind
	case "apiVersion":
		bit, dst = seenAPIVersion, &p.p.apiVersion
	}
	val, ok := peekValue(l[i+1:])
	if !ok {
		p.fail()
		return
	}
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
		end := -1
		for i := 1; i < len(v); i++ {
			if v[i] == '\\' {
				return nil, false // escapes: let the parser decode them
			}
			if v[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 || !restIsComment(v[end+1:]) {
			return nil, false
		}
		return v[1:end], true
	case '\'':
		var out []byte
		for i := 1; i < len(v); i++ {
			if v[i] == '\'' {
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
			out = append(out, v[i])
		}
		return nil, false
	}
	// A plain scalar; " #" starts a comment.
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
