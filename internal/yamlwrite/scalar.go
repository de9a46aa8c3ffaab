package yamlwrite

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// appendString writes s in a style, as libyaml's emitter does (go.yaml.in/yaml/v3's
// emitterc.go, with no line width): indent is the column of a literal block's lines, and of
// what follows a line separator inside a single-quoted scalar. A literal block ends with its
// last line break when s ends with one; nothing else ends with a line break.
func appendString(buf []byte, s string, style Style, indent int) []byte {
	switch style {
	case SingleQuoted:
		return appendSingleQuoted(buf, s, indent)
	case DoubleQuoted:
		return appendDoubleQuoted(buf, s)
	case Literal:
		return appendLiteral(buf, s, indent)
	}
	return append(buf, s...)
}

func appendSingleQuoted(buf []byte, s string, indent int) []byte {
	buf = append(buf, '\'')
	buf = appendLines(buf, s, indent, false, true)
	return append(buf, '\'')
}

// appendLines copies s, starting each line after a line break at indent (the first one too
// when breaks is true); quotes doubles single quotes, as a single-quoted scalar needs.
func appendLines(buf []byte, s string, indent int, breaks, quotes bool) []byte {
	for i := 0; i < len(s); {
		w := runeWidth(s[i])
		switch {
		case isBreakAt(s, i):
			breaks = true
		case breaks:
			buf = appendSpaces(buf, indent)
			breaks = false
		}
		if quotes && s[i] == '\'' {
			buf = append(buf, '\'')
		}
		buf = append(buf, s[i:i+w]...)
		i += w
	}
	return buf
}

// escapes are the short escapes of double-quoted scalars.
var escapes = map[rune]byte{
	0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0A: 'n', 0x0B: 'v', 0x0C: 'f', 0x0D: 'r', 0x1B: 'e',
	'"': '"', '\\': '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P',
}

// appendDoubleQuoted escapes what is not printable, line breaks, '"' and '\\' (and, as
// libyaml does, every character of a text that starts with a byte order mark).
func appendDoubleQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	bom := strings.HasPrefix(s, "\uFEFF")
	start := 0 // s[start:i] is copied as it is
	for i := 0; i < len(s); {
		w := runeWidth(s[i])
		if !bom && isPrintableAt(s, i) && !isBreakAt(s, i) && s[i] != '"' && s[i] != '\\' {
			i += w
			continue
		}
		buf = append(buf, s[start:i]...)
		r, _ := utf8.DecodeRuneInString(s[i:])
		buf = append(buf, '\\')
		switch e, ok := escapes[r]; {
		case ok:
			buf = append(buf, e)
		case r <= 0xFF:
			buf = fmt.Appendf(buf, "x%02X", r)
		case r <= 0xFFFF:
			buf = fmt.Appendf(buf, "u%04X", r)
		default:
			buf = fmt.Appendf(buf, "U%08X", r)
		}
		i += w
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// appendLiteral writes "|", the indentation indicator when the text starts with a blank or a
// break, the chomping indicator ("-" without a final break, "+" with several), then the
// lines at indent (empty lines stay empty).
func appendLiteral(buf []byte, s string, indent int) []byte {
	buf = append(buf, '|')
	if s != "" && (s[0] == ' ' || isBreakAt(s, 0)) {
		buf = append(buf, '2')
	}
	last := lastRuneStart(s, len(s))
	switch {
	case last < 0 || !isBreakAt(s, last):
		buf = append(buf, '-')
	case last == 0 || isBreakAt(s, lastRuneStart(s, last)):
		buf = append(buf, '+')
	}
	buf = append(buf, '\n')
	return appendLines(buf, s, indent, true, false)
}

// lastRuneStart is where the last character of s[:end] starts, -1 when there is none.
func lastRuneStart(s string, end int) int {
	if end <= 0 {
		return -1
	}
	_, w := utf8.DecodeLastRuneInString(s[:end])
	return end - w
}

func appendSpaces(buf []byte, n int) []byte {
	for range n {
		buf = append(buf, ' ')
	}
	return buf
}

// appendNumber writes a JSON number. A number yaml.v3 would read as another type carries the
// tag yaml.v3 writes (an integer past 64 bits reads as a float:
// "!!int 123…").
func appendNumber(buf []byte, n json.Number) ([]byte, error) {
	s := string(n)
	if s == "" || !(s[0] == '-' || isDigit(s[0])) || !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("not a JSON number: %q", s)
	}
	if tag := numberTag(s); tag != "" {
		buf = append(append(buf, tag...), ' ')
	}
	return append(buf, s...), nil
}

// numberTag is the tag yaml.v3 writes before a JSON number's text: "" when the text reads
// back as the same type.
func numberTag(s string) string {
	want := "!!int"
	if strings.ContainsAny(s, ".eE") {
		want = "!!float"
	} else if len(s) < 19 {
		return "" // fits in an int64
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	if n.ShortTag() == want {
		return ""
	}
	return want
}
