package catalog

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// readBufSize is the read buffer of the splitters; lines and JSON values
// may be longer.
const readBufSize = 64 << 10

// splitYAML cuts a YAML stream into documents (chunks), calling emit for
// each in order, and read for every block of bytes read. A document is cut
// at the lines that start with "---" or "..." followed by a blank or the
// end of the line: YAML forbids those at column 0 inside any node, so they
// are always document markers. A CatalogSnapshot written by WriteSnapshot is
// further cut into its spec.packages elements (see snapshotSplitter).
func splitYAML(name string, r io.Reader, emit func(*chunk) error, read func(int)) error {
	s := yamlSplitter{name: name, emit: emit, r: r}
	return s.run(read)
}

type yamlSplitter struct {
	name string
	emit func(*chunk) error
	r    io.Reader

	line  int // number of the line being read
	index int // index of the next document

	cur        []byte // the document being read
	curLine    int    // line of cur's first byte
	hasContent bool   // cur has something besides blanks, comments, directives
	marker     bool   // cur was started by "---"
	peek       yamlPeek

	snap *snapshotSplitter // non-nil once cur is a CatalogSnapshot cut into packages
}

// run reads blocks and looks at them a line at a time. Most lines of a
// catalog are nested lines of a blob: they are copied to the document in
// spans, without a look; the others go to handle.
func (s *yamlSplitter) run(read func(int)) error {
	s.curLine = 1
	buf := make([]byte, 0, readBufSize)
	eof := false
	for !eof {
		if len(buf) == cap(buf) { // a line longer than the buffer
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		n, err := s.r.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			read(n)
			buf = buf[:len(buf)+n]
		}
		switch {
		case err == io.EOF:
			eof = true
		case err != nil:
			return &Error{Source: fileSource(s.name), Err: err}
		case n == 0:
			continue
		}
		pos, span := 0, 0 // buf[span:pos] is to be copied to cur
		for pos < len(buf) {
			end := bytes.IndexByte(buf[pos:], '\n')
			if end < 0 {
				if !eof {
					break // an incomplete line: read more
				}
				end = len(buf)
			} else {
				end += pos + 1
			}
			line := buf[pos:end]
			s.line++
			if line[0] == ' ' && s.snap == nil && s.hasContent && s.peek.sawKey && s.peek.p.kind == "" {
				pos = end // the common case: a nested line of a blob, nothing to look at
				continue
			}
			s.cur = append(s.cur, buf[span:pos]...)
			if err := s.handle(line); err != nil {
				return err
			}
			pos, span = end, end
		}
		s.cur = append(s.cur, buf[span:pos]...)
		buf = buf[:copy(buf, buf[pos:])]
	}
	return s.flush()
}

// handle looks at a line (not yet part of cur).
func (s *yamlSplitter) handle(line []byte) error {
	content := trimEOL(line)
	isMarker := isDocMarker(content, "---")
	isEnd := !isMarker && isDocMarker(content, "...")
	if s.snap != nil {
		if !isMarker && !isEnd {
			if s.snap.notOurs(content) {
				// spec.packages is not written as WriteSnapshot writes
				// it: back to a plain document, parsed whole.
				sn := s.snap
				s.snap = nil
				s.cur = append(append(append(s.cur[:0], sn.header...), sn.pending...), line...)
				return nil
			}
			return s.snap.line(line, s.line)
		}
		if err := s.finishSnapshot(); err != nil {
			return err
		}
		s.curLine = s.line
	}
	switch {
	case isMarker:
		if s.marker || s.hasContent {
			if err := s.flush(); err != nil {
				return err
			}
			s.cur = s.cur[:0]
			s.curLine = s.line
		}
		// else: blanks, comments or directives before the first marker
		// stay with the document the marker starts.
		s.cur = append(s.cur, line...)
		s.startDoc()
		if rest := bytes.TrimSpace(content[3:]); len(rest) > 0 && rest[0] != '#' {
			s.hasContent = true
			s.peek.fail() // "--- value": let the parser read it
		}
	case isEnd:
		s.cur = append(s.cur, line...)
		if err := s.flush(); err != nil {
			return err
		}
		s.cur = s.cur[:0]
		s.curLine = s.line + 1
		s.marker, s.hasContent = false, false
		s.peek = yamlPeek{}
	default:
		start := len(s.cur)
		s.cur = append(s.cur, line...)
		if !s.hasContent && hasContent(content) {
			s.hasContent = true
		}
		s.peek.line(content)
		if s.peek.snapshotStart(content) {
			s.snap = newSnapshotSplitter(s, start)
			s.snap.pending = append(s.snap.pending, line...)
			s.cur = s.cur[:0]
		}
	}
	return nil
}

func (s *yamlSplitter) startDoc() {
	s.marker, s.hasContent = true, false
	s.peek = yamlPeek{}
}

// flush emits cur as a document.
func (s *yamlSplitter) flush() error {
	if s.snap != nil {
		return s.finishSnapshot()
	}
	if !s.marker && !s.hasContent {
		return nil
	}
	c := &chunk{src: Source{File: s.name, Index: s.index, Line: s.curLine}, peek: s.peek.result()}
	s.index++
	if !s.hasContent {
		return nil // an empty document ("---" with nothing after)
	}
	c.data = s.cur // borrowed: emit copies what it keeps
	return s.emit(c)
}

// finishSnapshot ends a CatalogSnapshot document: its last package, then
// its header (every line outside spec.packages).
func (s *yamlSplitter) finishSnapshot() error {
	sn := s.snap
	s.snap = nil
	s.index = sn.index + 1
	s.cur = s.cur[:0]
	s.marker, s.hasContent = false, false
	s.peek = yamlPeek{}
	if err := sn.flushItem(); err != nil {
		return err
	}
	header := append(sn.header, sn.trailer...)
	return s.emit(&chunk{src: Source{File: s.name, Index: sn.index, Line: sn.headerLine}, data: header, snapshotHeader: true})
}

func isDocMarker(line []byte, m string) bool {
	if len(line) < 3 || string(line[:3]) != m {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t'
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// hasContent: not blank, not a comment, not a directive.
func hasContent(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || t[0] == '#' {
		return false
	}
	if len(t) >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf { // byte order mark
		return hasContent(t[3:])
	}
	return !(line[0] == '%')
}

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
		if !p.sawKey && hasContent(l) {
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

// splitJSON cuts a stream of concatenated JSON values into chunks.
func splitJSON(name string, r io.Reader, emit func(*chunk) error, read func(int)) error {
	s := jsonSplitter{r: r, read: read, line: 1}
	for index := 0; ; index++ {
		data, line, err := s.next()
		if err != nil {
			return &Error{Source: fileSource(name), Err: err}
		}
		if data == nil {
			return nil
		}
		c := &chunk{json: true, src: Source{File: name, Index: index, Line: line}, data: data, peek: peekJSON(data)}
		if err := emit(c); err != nil {
			return err
		}
	}
}

type jsonSplitter struct {
	r     io.Reader
	read  func(int)
	buf   []byte
	pos   int // next byte to look at
	eof   bool
	first bool // the start of the stream was checked for a byte order mark
	line  int  // line of buf[pos]
}

// fill drops buf[:pos] and reads more; false at the end of the stream.
func (s *jsonSplitter) fill() (bool, error) {
	if s.eof {
		return false, nil
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if cap(s.buf)-len(s.buf) < readBufSize/2 {
		nb := make([]byte, len(s.buf), 2*cap(s.buf)+readBufSize)
		copy(nb, s.buf)
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if n > 0 {
		s.read(n)
	}
	switch {
	case err == io.EOF:
		s.eof = true
		return n > 0, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// next returns the next top-level value's bytes (a copy) and its line; nil
// at the end. Broken JSON is cut somewhere: the decoder of the chunk then
// reports it.
func (s *jsonSplitter) next() ([]byte, int, error) {
	for {
		for s.pos < len(s.buf) {
			c := s.buf[s.pos]
			if c == '\n' {
				s.line++
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
			s.pos++
		}
		if s.pos < len(s.buf) {
			if !s.first {
				if len(s.buf)-s.pos < 3 && !s.eof {
					if _, err := s.fill(); err != nil {
						return nil, 0, err
					}
					continue
				}
				s.first = true
				if bytes.HasPrefix(s.buf[s.pos:], []byte("\xef\xbb\xbf")) {
					s.pos += 3
					continue
				}
			}
			break
		}
		more, err := s.fill()
		if err != nil {
			return nil, 0, err
		}
		if !more && s.pos >= len(s.buf) {
			return nil, 0, nil
		}
	}
	line := s.line
	i := s.pos
	switch s.buf[i] {
	case '{', '[', '"':
		depth, inString, escaped := 0, false, false
	scan:
		for {
			if i >= len(s.buf) {
				k := i - s.pos
				more, err := s.fill()
				if err != nil {
					return nil, 0, err
				}
				i = s.pos + k
				if !more {
					break scan // cut short: the decoder reports the end of input
				}
				continue
			}
			if inString {
				if escaped {
					escaped = false
					i++
					continue
				}
				j := bytes.IndexAny(s.buf[i:], "\"\\")
				if j < 0 {
					i = len(s.buf)
					continue
				}
				i += j
				if s.buf[i] == '\\' {
					escaped = true
					i++
					continue
				}
				inString = false
				i++
				if depth == 0 {
					break scan
				}
				continue
			}
			switch s.buf[i] {
			case '"':
				inString = true
				i++
			case '{', '[':
				depth++
				i++
			case '}', ']':
				depth--
				i++
				if depth <= 0 {
					break scan
				}
			default:
				j := bytes.IndexAny(s.buf[i:], "\"{}[]")
				if j < 0 {
					i = len(s.buf)
				} else {
					i += j
				}
			}
		}
	case '}', ']', ',', ':':
		i++ // a stray delimiter: one byte, which the decoder reports
	default:
	scalar:
		for {
			if i >= len(s.buf) {
				k := i - s.pos
				more, err := s.fill()
				if err != nil {
					return nil, 0, err
				}
				i = s.pos + k
				if !more {
					break
				}
				continue
			}
			switch s.buf[i] {
			case ' ', '\t', '\r', '\n', '{', '}', '[', ']', ',', ':', '"':
				break scalar
			}
			i++
		}
	}
	data := append([]byte(nil), s.buf[s.pos:i]...)
	s.line += bytes.Count(data, []byte{'\n'})
	s.pos = i
	if len(data) == 0 {
		return nil, 0, errors.New("internal: empty JSON value")
	}
	return data, line, nil
}

// peekJSON reads the top-level string members schema, package, name, kind
// and apiVersion of a JSON object.
func peekJSON(d []byte) peekResult {
	var p peekResult
	var seen uint8
	i := skipJSONSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return peekResult{}
	}
	i++
	for {
		i = skipJSONSpace(d, i)
		if i < len(d) && d[i] == '}' {
			p.ok = p.schema != "" || p.kind != ""
			if p.schema == schemaPackage {
				p.pkg = p.name
			}
			return p
		}
		key, j, ok := jsonSimpleString(d, i)
		if !ok {
			return peekResult{}
		}
		i = skipJSONSpace(d, j)
		if i >= len(d) || d[i] != ':' {
			return peekResult{}
		}
		i = skipJSONSpace(d, i+1)
		var bit uint8
		var dst *string
		switch string(key) {
		case "schema":
			bit, dst = seenSchema, &p.schema
		case "package":
			bit, dst = seenPackage, &p.pkg
		case "name":
			bit, dst = seenName, &p.name
		case "kind":
			bit, dst = seenKind, &p.kind
		case "apiVersion":
			bit, dst = seenAPIVersion, &p.apiVersion
		}
		if dst != nil {
			val, j, ok := jsonSimpleString(d, i)
			if !ok || seen&bit != 0 {
				return peekResult{}
			}
			seen |= bit
			*dst = string(val)
			i = j
		} else {
			j, ok := skipJSONValue(d, i)
			if !ok {
				return peekResult{}
			}
			i = j
		}
		i = skipJSONSpace(d, i)
		if i < len(d) && d[i] == ',' {
			i++
			continue
		}
		if i < len(d) && d[i] == '}' {
			continue
		}
		return peekResult{}
	}
}

func skipJSONSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n') {
		i++
	}
	return i
}

// jsonSimpleString reads a string without escapes at d[i].
func jsonSimpleString(d []byte, i int) ([]byte, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return nil, i, false
	}
	j := bytes.IndexAny(d[i+1:], "\"\\")
	if j < 0 || d[i+1+j] != '"' || !utf8.Valid(d[i+1:i+1+j]) {
		return nil, i, false
	}
	return d[i+1 : i+1+j], i + j + 2, true
}

// skipJSONValue skips the value at d[i], checking only its nesting.
func skipJSONValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case '"':
		return skipJSONString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				j, ok := skipJSONString(d, i)
				if !ok {
					return j, false
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	for i < len(d) {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, true
		}
		i++
	}
	return i, true
}

func skipJSONString(d []byte, i int) (int, bool) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}
