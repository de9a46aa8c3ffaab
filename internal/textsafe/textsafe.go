// Package textsafe owns how a string from untrusted input (a catalog, a bundle, a cluster
// object, a tenant's repository) is written where a person reads it: on a terminal, where
// control characters (ESC, CR, BEL…) can erase and rewrite what was printed, and in Markdown
// posted on a pull request, where syntax can open headings, code fences, links and images
// that swallow or forge the rest of the comment. JSON needs nothing of it: its encoder
// escapes control characters itself.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
)

// Line is s with every control character (C0, DEL, C1) and Unicode line or paragraph
// separator written as a Go escape (\n, \r, \x1b, \u2028…): one line, as it was, with nothing
// a terminal would act on.
func Line(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	return escape(s, false)
}

// Lines is Line that keeps newlines: for text whose own lines are its structure (an error
// that joins several).
func Lines(s string) string {
	if !needsEscape(s, true) {
		return s
	}
	return escape(s, true)
}

func needsEscape(s string, keepNewlines bool) bool {
	for _, r := range s {
		if special(r) && (r != '\n' || !keepNewlines) {
			return true
		}
	}
	return false
}

// special are the runes Line escapes.
func special(r rune) bool {
	return unicode.IsControl(r) && r != '\t' || r == '\u2028' || r == '\u2029' || r == '\ufeff' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

func escape(s string, keepNewlines bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' && keepNewlines:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case special(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case special(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownPunct are the characters that can start Markdown structure inside a line of text:
// emphasis, code spans, links and images, HTML and entities, table cells, strikethrough,
// GitHub's math, @mentions (and e-mail autolinks) and #references. Each is backslash-escaped
// (CommonMark renders an escaped punctuation character as itself). Characters that only
// matter at the start of a line (-, +, ., #… headings and lists) never start one: controls
// are escaped, and callers write their own line prefix.
const markdownPunct = "\\`*_[]<>!|~&$@#"

// Markdown is s as inline Markdown text that renders as s and nothing more: controls escaped
// as Line does (so no line break starts a heading or a fence), the characters of
// markdownPunct backslash-escaped, and the "://" and "www." GitHub turns into links broken by
// an escaped character.
func Markdown(s string) string {
	s = Line(s)
	var b strings.Builder
	for i, r := range s {
		if r < 0x80 && strings.ContainsRune(markdownPunct, r) || r == ':' && strings.HasPrefix(s[i+1:], "/") ||
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// HTML is s as text inside an HTML element (a <summary>): controls escaped as Line does, and
// &, <, >, and quotes as entities.
func HTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(Line(s))
}
