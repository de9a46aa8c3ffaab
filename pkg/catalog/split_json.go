package catalog

// Cutting a JSON stream into values.

import (
	"bytes"
	"errors"
	"io"
)

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
