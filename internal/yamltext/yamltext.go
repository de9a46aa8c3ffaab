// Package yamltext owns reading YAML text a line at a time, below the parser: the rules the
// splitters share when they cut a stream into documents or a block-style list into items that
// are parsed on their own (the catalog loader's streaming splitter, the KRM function's
// ResourceList splitter). Only what holds for any YAML lives here; each splitter keeps its own
// layout rules and hands anything it does not recognise to the parser.
package yamltext

import "bytes"

// Next returns the line of data that starts at offset start, with its line ending, and the
// offset after it (len(data) for a last line without one).
func Next(data []byte, start int) (line []byte, end int) {
	end = len(data)
	if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
		end = start + i + 1
	}
	return data[start:end], end
}

// Lines calls f with each line of text (line endings kept) and its number from 0.
func Lines(text []byte, f func(i int, line []byte)) {
	for i, start := 0, 0; start < len(text); i++ {
		line, end := Next(text, start)
		f(i, line)
		start = end
	}
}

// TrimEOL removes a line's "\n" or "\r\n".
func TrimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// Indent is the number of spaces a line starts with (YAML indents with spaces only).
func Indent(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

// IsBlank reports a line of spaces only (line ending removed).
func IsBlank(content []byte) bool { return Indent(content) == len(content) }

// IsComment reports a line whose first non-space character starts a comment.
func IsComment(content []byte) bool {
	i := Indent(content)
	return i < len(content) && content[i] == '#'
}

// IsDocMarker reports a line that starts with the marker m ("---" or "...") followed by a
// blank or the end of the line: YAML forbids those at column 0 inside any node, so they
// always start or end a document.
func IsDocMarker(content []byte, m string) bool {
	if len(content) < 3 || string(content[:3]) != m {
		return false
	}
	return len(content) == 3 || content[3] == ' ' || content[3] == '\t'
}

// HasContent reports a line that is neither blank, nor a comment, nor a directive ("%").
func HasContent(content []byte) bool {
	t := bytes.TrimLeft(content, " \t")
	if len(t) == 0 || t[0] == '#' {
		return false
	}
	if len(t) >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf { // byte order mark
		return HasContent(t[3:])
	}
	return content[0] != '%'
}

// OnlyNewlineBreaks reports whether every line break of data is "\n" or "\r\n": YAML also
// breaks lines at a lone "\r" and at NEL, LS and PS, which a line splitter would miss.
func OnlyNewlineBreaks(data []byte) bool {
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 >= len(rest) || rest[i+1] != '\n' {
			return false
		}
		rest = rest[i+1:]
	}
	return !bytes.Contains(data, []byte("\xc2\x85")) && !bytes.Contains(data, []byte("\xe2\x80\xa8")) && !bytes.Contains(data, []byte("\xe2\x80\xa9"))
}

// IsListEntry reports a block sequence entry at column indent: "- " or a lone "-".
func IsListEntry(content []byte, indent int) bool {
	rest := content[indent:]
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
}

// Dedent removes up to cut leading spaces of a line, never more than it has, so that an
// item of a block list becomes a document of its own.
func Dedent(line []byte, cut int) []byte {
	return line[min(cut, Indent(line)):]
}

// IsKey reports a line that starts with "key:" followed by a space or the end of the line.
func IsKey(content []byte, key string) bool {
	if !bytes.HasPrefix(content, []byte(key+":")) {
		return false
	}
	rest := content[len(key)+1:]
	return len(rest) == 0 || rest[0] == ' '
}
