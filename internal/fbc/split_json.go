package fbc

// Cutting a JSON stream into values.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// splitJSON cuts a stream of concatenated JSON values into chunks.
func splitJSON(name string, r io.Reader, emit func(*chunk) error, read func(int)) error {
	return splitJSONWithin(defaultSplitLimits, name, r, emit, read)
}

// splitJSONWithin is splitJSON refusing a value longer than limits.blob: the
// splitter holds the value being cut, so that is what it may hold.
func splitJSONWithin(limits splitLimits, name string, r io.Reader, emit func(*chunk) error, read func(int)) error {
	s := jsonSplitter{name: name, r: r, read: read, line: 1, limits: limits}
	for ; ; s.index++ {
		data, line, err := s.next()
		if err != nil {
			if _, ok := errors.AsType[*Error](err); ok {
				return err // a limit, already placed
			}
			return &Error{Source: fileSource(name), Err: err}
		}
		if data == nil {
			return nil
		}
		c := &chunk{json: true, src: Source{File: name, Index: s.index, Line: line}, data: data, peek: peekJSON(data)}
		if err := emit(c); err != nil {
			return err
		}
	}
}

type jsonSplitter struct {
	name   string
	r      io.Reader
	read   func(int)
	limits splitLimits
	buf    []byte
	off    int64 // offset of buf[0] in the stream
	pos    int   // next byte to look at
	eof    bool
	first  bool // the start of the stream was checked for a byte order mark
	line   int  // line of buf[pos]
	index  int  // index of the value being cut
}

// fill drops buf[:pos] and reads more; false at the end of the stream. The
// buffer grows to hold a value, up to the blob limit.
func (s *jsonSplitter) fill() (bool, error) {
	if s.eof {
		return false, nil
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.off += int64(s.pos)
		s.pos = 0
	}
	if cap(s.buf)-len(s.buf) < readBufSize/2 {
		size := max(min(2*cap(s.buf)+readBufSize, s.limits.blob+readBufSize), len(s.buf)+readBufSize)
		nb := make([]byte, len(s.buf), size)
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

// more reads on into a value that starts at buf[pos] and was looked at up to
// buf[i]; it returns i moved with the buffer, and false at the end of the
// stream. A value that reached the blob limit is an error.
func (s *jsonSplitter) more(i int) (int, bool, error) {
	k := i - s.pos
	if k > s.limits.blob {
		return i, false, s.tooLarge(i)
	}
	more, err := s.fill()
	return s.pos + k, more, err
}

// tooLarge is the error for the value at buf[pos], looked at up to buf[i].
func (s *jsonSplitter) tooLarge(i int) error {
	lines := bytes.Count(s.buf[s.pos:i], []byte{'\n'})
	start := s.off + int64(s.pos)
	msg := fmt.Sprintf("a JSON value over the %s limit on one blob: it starts at byte %d and goes on past byte %d (line %d)",
		sizeText(s.limits.blob), start, start+int64(s.limits.blob), s.line+lines)
	return &Error{Source: Source{File: s.name, Index: s.index, Line: s.line}, Err: &tooLargeError{msg}}
}

// tooLargeError is a value, document or line over its limit: errors.Is(err, ErrTooLarge).
type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string        { return e.msg }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// next returns the next top-level value's bytes (a copy) and its line; nil
// at the end. Broken JSON is cut somewhere: the decoder of the chunk then
// reports it.
func (s *jsonSplitter) next() ([]byte, int, error) {
	if ok, err := s.skipSpace(); !ok || err != nil {
		return nil, 0, err
	}
	line := s.line
	var i int
	var err error
	switch s.buf[s.pos] {
	case '{', '[', '"':
		i, err = s.scanNested(s.pos)
	case '}', ']', ',', ':':
		i = s.pos + 1 // a stray delimiter: one byte, which the decoder reports
	default:
		i, err = s.scanScalar(s.pos)
	}
	if err != nil {
		return nil, 0, err
	}
	if i-s.pos > s.limits.blob { // it came whole, in a buffer grown for a long one
		return nil, 0, s.tooLarge(i)
	}
	data := append([]byte(nil), s.buf[s.pos:i]...)
	s.line += bytes.Count(data, []byte{'\n'})
	s.pos = i
	if len(data) == 0 {
		return nil, 0, errors.New("internal: empty JSON value")
	}
	return data, line, nil
}

// skipSpace moves pos to the start of the next value (past a byte order mark
// at the start of the stream); false at the end of the stream.
func (s *jsonSplitter) skipSpace() (bool, error) {
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
						return false, err
					}
					continue
				}
				s.first = true
				if bytes.HasPrefix(s.buf[s.pos:], []byte("\xef\xbb\xbf")) {
					s.pos += 3
					continue
				}
			}
			return true, nil
		}
		more, err := s.fill()
		if err != nil || (!more && s.pos >= len(s.buf)) {
			return false, err
		}
	}
}

// scanNested returns the end of the object, array or string at buf[i]; at
// the end of the stream, the end of what there is.
func (s *jsonSplitter) scanNested(i int) (int, error) {
	depth, inString, escaped := 0, false, false
	for {
		if i >= len(s.buf) {
			var more bool
			var err error
			if i, more, err = s.more(i); err != nil || !more {
				return i, err // cut short: the decoder reports the end of input
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
				return i, nil
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
				return i, nil
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
}

// scanScalar returns the end of the number or literal (or stray text) at buf[i].
func (s *jsonSplitter) scanScalar(i int) (int, error) {
	for {
		if i >= len(s.buf) {
			var more bool
			var err error
			if i, more, err = s.more(i); err != nil || !more {
				return i, err
			}
			continue
		}
		switch s.buf[i] {
		case ' ', '\t', '\r', '\n', '{', '}', '[', ']', ',', ':', '"':
			return i, nil
		}
		i++
	}
}
