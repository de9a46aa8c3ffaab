package catalog

import (
	"bytes"
	"io"

	"github.com/odlm-render/odlm-render/internal/yamltext"
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
	content := yamltext.TrimEOL(line)
	isMarker := yamltext.IsDocMarker(content, "---")
	isEnd := !isMarker && yamltext.IsDocMarker(content, "...")
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
		if !s.hasContent && yamltext.HasContent(content) {
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
