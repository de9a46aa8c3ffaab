package fbc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

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
	return splitYAMLWithin(defaultSplitLimits, name, r, emit, read)
}

// splitYAMLWithin is splitYAML refusing a line longer than limits.line and
// a document longer than limits.blob: the splitter holds both.
func splitYAMLWithin(limits splitLimits, name string, r io.Reader, emit func(*chunk) error, read func(int)) error {
	s := yamlSplitter{name: name, emit: emit, r: r, limits: limits}
	return s.run(read)
}

type yamlSplitter struct {
	name   string
	emit   func(*chunk) error
	r      io.Reader
	limits splitLimits

	line  int // number of the line being read
	index int // index of the next document

	cur        []byte // the document being read
	curLine    int    // line of cur's first byte
	hasContent bool   // cur has something besides blanks, comments, directives
	marker     bool   // cur was started by "---"
	opm        opmChunk
	peek       yamlPeek

	snap *snapshotSplitter // non-nil once cur is a CatalogSnapshot cut into packages
}

// run reads blocks and looks at them a line at a time. Most lines of a
// catalog are nested lines of a blob: they are copied to the document in
// spans, without a look; the others go to handle. An incomplete line at the
// end of a block is moved to the front of the buffer, and the next block is
// searched for its end from where the last search stopped: a long line
// arriving in small reads costs its length once, not once per read.
func (s *yamlSplitter) run(read func(int)) error {
	s.curLine = 1
	buf := make([]byte, 0, readBufSize)
	scanned := 0 // buf[:scanned] is an incomplete line: no newline there
	eof := false
	for !eof {
		if len(buf) == cap(buf) { // a line longer than the buffer
			nb := make([]byte, len(buf), min(2*cap(buf), s.limits.line+readBufSize))
			copy(nb, buf)
			buf = nb
		}
		n, err := s.r.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			read(n)
			buf = buf[:len(buf)+n]
		}
		switch {
		case errors.Is(err, io.EOF):
			eof = true
		case err != nil:
			return &Error{Source: fileSource(s.name), Err: err}
		case n == 0:
			continue
		}
		pos, err := s.lines(buf, scanned, eof)
		if err != nil {
			return err
		}
		buf = buf[:copy(buf, buf[pos:])]
		scanned = len(buf)
		if err := s.checkSize(); err != nil {
			return err
		}
	}
	if err := s.opmEnd(); err != nil {
		return err
	}
	return s.flush()
}

// lines handles the complete lines of buf (all of them at the end of the
// stream), knowing that buf[:scanned] holds no newline; it returns where the
// incomplete last line starts.
func (s *yamlSplitter) lines(buf []byte, scanned int, eof bool) (int, error) {
	pos, span := 0, 0 // buf[span:pos] is to be copied to cur
	for pos < len(buf) {
		from := max(pos, scanned)
		end := bytes.IndexByte(buf[from:], '\n')
		if end < 0 {
			if !eof {
				break // an incomplete line: read more
			}
			end = len(buf)
		} else {
			end += from + 1
		}
		if end-pos > s.limits.line {
			return 0, s.tooLarge(true, s.line+1)
		}
		line := buf[pos:end]
		s.line++
		if line[0] == ' ' && s.snap == nil && s.hasContent && s.peek.sawKey && s.peek.p.kind == "" {
			pos = end // the common case: a nested line of a blob, nothing to look at
			continue
		}
		s.cur = append(s.cur, buf[span:pos]...)
		if err := s.handle(line); err != nil {
			return 0, err
		}
		pos, span = end, end
	}
	if len(buf)-pos > s.limits.line {
		return 0, s.tooLarge(true, s.line+1)
	}
	s.cur = append(s.cur, buf[span:pos]...)
	return pos, nil
}

// checkSize refuses a document whose complete lines are over the blob limit
// (its incomplete last line is the line limit's). It is called once a
// block: a document outgrows the limit by at most a block before it is
// caught.
func (s *yamlSplitter) checkSize() error {
	n := len(s.cur)
	if sn := s.snap; sn != nil {
		n += len(sn.header) + len(sn.pending) + len(sn.item) + len(sn.trailer)
	}
	if n > s.limits.blob {
		return s.tooLarge(false, s.line+1)
	}
	return nil
}

// tooLarge is the error for a line (isLine) or the document being read,
// over its limit at line num.
func (s *yamlSplitter) tooLarge(isLine bool, num int) error {
	src := Source{File: s.name, Index: s.index, Line: s.curLine}
	if sn := s.snap; sn != nil {
		src.Index, src.Line = sn.index, sn.headerLine
		if sn.inItem {
			src.Line = sn.itemLine
		}
	}
	msg := fmt.Sprintf("a document over the %s limit on one blob, at line %d", sizeText(s.limits.blob), num)
	if isLine {
		src.Line = num
		msg = fmt.Sprintf("line %d is over the %s limit on one line", num, sizeText(s.limits.line))
	}
	return &Error{Source: src, Err: &tooLargeError{msg}}
}

// handle looks at a line (not yet part of cur).
func (s *yamlSplitter) handle(line []byte) error {
	content := yamltext.TrimEOL(line)
	isMarker := yamltext.IsDocMarker(content, "---")
	isEnd := !isMarker && yamltext.IsDocMarker(content, "...")
	if err := s.opmLine(content, isMarker, isEnd); err != nil {
		return err
	}
	if s.snap != nil {
		if !isMarker && !isEnd {
			return s.snapshotLine(line, content)
		}
		if err := s.finishSnapshot(); err != nil {
			return err
		}
		s.curLine = s.line
	}
	switch {
	case isMarker:
		return s.marked(line, content)
	case isEnd:
		return s.ended(line)
	}
	s.docLine(line, content)
	return nil
}

// snapshotLine hands a line of a CatalogSnapshot cut into packages to its
// splitter.
func (s *yamlSplitter) snapshotLine(line, content []byte) error {
	if !s.snap.notOurs(content) {
		return s.snap.line(line, s.line)
	}
	// spec.packages is not written as WriteSnapshot writes it: back to a
	// plain document, parsed whole.
	sn := s.snap
	s.snap = nil
	s.cur = append(append(append(s.cur[:0], sn.header...), sn.pending...), line...)
	return nil
}

// marked starts a document at a "---" line.
func (s *yamlSplitter) marked(line, content []byte) error {
	if s.marker || s.hasContent {
		if err := s.flush(); err != nil {
			return err
		}
		s.cur = s.cur[:0]
		s.curLine = s.line
	}
	// else: blanks, comments or directives before the first marker stay
	// with the document the marker starts.
	s.cur = append(s.cur, line...)
	s.startDoc()
	if rest := bytes.TrimSpace(content[3:]); len(rest) > 0 && rest[0] != '#' {
		s.hasContent = true
		s.peek.fail() // "--- value": let the parser read it
	}
	return nil
}

// ended ends the document at a "..." line.
func (s *yamlSplitter) ended(line []byte) error {
	s.cur = append(s.cur, line...)
	if err := s.flush(); err != nil {
		return err
	}
	s.cur = s.cur[:0]
	s.curLine = s.line + 1
	s.marker, s.hasContent = false, false
	s.peek = yamlPeek{}
	return nil
}

// docLine adds a line to the document, and starts cutting it into packages
// at the "  packages:" of a CatalogSnapshot.
func (s *yamlSplitter) docLine(line, content []byte) {
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

// opmChunk is the document Kubernetes' YAML reader, which opm reads catalogs with, is
// reading: it cuts a file at "---" lines, but a "---" line read while its buffer is empty
// (the file's first line, or one right after another "---") becomes part of the next
// document. A document of blanks, comments or directives only, the text before a first "---"
// included, is a blob without a schema to opm, and it refuses the whole catalog; YAML parsers,
// and the splitter, read it as no document at all.
type opmChunk struct {
	started bool // the reader's buffer holds something
	content bool // something besides blanks, comments, directives and "..."
	line    int  // where it started
}

// opmLine follows a line through opm's reader.
func (s *yamlSplitter) opmLine(content []byte, isMarker, isEnd bool) error {
	if isMarker && s.opm.started {
		return s.opmEnd()
	}
	if !s.opm.started {
		s.opm = opmChunk{started: true, line: s.line}
	}
	switch {
	case isMarker:
		// "--- value": a document with content (which opm's reader refuses as a syntax error)
		s.opm.content = s.opm.content || yamltext.HasContent(content[3:])
	case !isEnd && yamltext.HasContent(content):
		s.opm.content = true
	}
	return nil
}

// opmEnd ends opm's document, and reports it when it holds nothing (Catalog.OPMRefusals).
func (s *yamlSplitter) opmEnd() error {
	c := s.opm
	s.opm = opmChunk{}
	if !c.started || c.content {
		return nil
	}
	src := Source{File: s.name, Index: -1, Line: c.line}
	return s.emit(&chunk{src: src, pre: []item{{kind: itemContentless, src: src}}})
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
	header := slices.Concat(sn.header, sn.trailer)
	return s.emit(&chunk{src: Source{File: s.name, Index: sn.index, Line: sn.headerLine}, data: header, snapshotHeader: true})
}
