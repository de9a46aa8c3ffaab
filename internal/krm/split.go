package krm

import (
	"bytes"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

// splitList cuts a ResourceList written in block style (what kpt, kustomize and kyaml
// write) into its items' texts and the rest, so that items can be parsed one at a time:
// yaml.v3 holds a whole document as nodes, several times the size of the text, and a fleet's
// ResourceList is one document. ok is false for any layout it does not recognise (flow
// style, JSON, directives, tabs, documents markers, a line less indented than its item);
// the caller then parses the whole document, which gives the same values and the errors.
//
// The items block is "items:" at column 0 followed by entries "- " at one indentation p,
// every other line of an entry indented more than p (or blank, or a comment). Each entry's
// text is returned with p+2 columns removed, so it parses as a document of its own; header
// is the input without the items' entries ("items:" stays, with a null value).
func splitList(data []byte) (header []byte, items []rawItem, ok bool) {
	if len(data) == 0 || data[0] == '{' || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || !yamltext.OnlyNewlineBreaks(data) {
		return nil, nil, false
	}
	s := splitter{data: data, p: -1}
	for start := 0; start < len(data); {
		line, end := yamltext.Next(data, start)
		if !s.line(line, start, end) {
			return nil, nil, false
		}
		start = end
	}
	if !s.sawItems {
		return nil, nil, false
	}
	return s.head.Bytes(), s.items, true
}

// splitter is splitList's state, a line at a time.
type splitter struct {
	data  []byte
	head  bytes.Buffer
	items []rawItem
	// inItems: the lines are the items block's; sawItems: there was one
	inItems, sawItems bool
	p                 int // the entries' indentation (-1 before the first entry)
}

// line takes the line data[start:end]; false is a layout splitList does not recognise.
func (s *splitter) line(line []byte, start, end int) bool {
	content := yamltext.TrimEOL(line)
	if bytes.HasPrefix(content, []byte("\t")) || bytes.HasPrefix(content, []byte("%")) ||
		bytes.HasPrefix(content, []byte("---")) || bytes.HasPrefix(content, []byte("...")) {
		return false
	}
	if s.inItems {
		taken, ok := s.itemLine(line, content, start, end)
		if !ok || taken {
			return ok
		}
		s.inItems = false // a top-level key: the items block ended
	}
	return s.topLine(line, content)
}

// itemLine takes a line of the items block: a blank or comment line, an entry's first line,
// or one of its other lines. taken is false for a top-level key, which ends the block.
func (s *splitter) itemLine(line, content []byte, start, end int) (taken, ok bool) {
	indent := yamltext.Indent(content)
	switch {
	case yamltext.IsBlank(content) || yamltext.IsComment(content):
		if len(s.items) > 0 {
			s.extend(end)
		} else {
			s.head.Write(line) // parsed with the header, so that nothing goes unchecked
		}
	case s.p < 0 && yamltext.IsListEntry(content, indent):
		s.p = indent
		s.items = append(s.items, rawItem{indent: s.p, text: s.data[start:end:len(s.data)], end: end})
	case indent == s.p && yamltext.IsListEntry(content, indent):
		s.items = append(s.items, rawItem{indent: s.p, text: s.data[start:end:len(s.data)], end: end})
	case s.p >= 0 && indent > s.p:
		if indent < s.p+2 {
			return false, false
		}
		s.extend(end)
	case indent == 0 && s.p > 0 && yamltext.IsListEntry(content, 0), indent != 0:
		return false, false
	default:
		return false, true
	}
	return true, true
}

// topLine takes a line outside the items block: it goes to the header, and "items:" at
// column 0 starts the block.
func (s *splitter) topLine(line, content []byte) bool {
	if yamltext.Indent(content) == 0 && !yamltext.IsBlank(content) && !yamltext.IsComment(content) && yamltext.IsKey(content, "items") {
		if s.sawItems {
			return false
		}
		rest := bytes.TrimSpace(content[len("items:"):])
		if len(rest) > 0 && rest[0] != '#' {
			return false // items on the key's line (flow style, null, an alias)
		}
		s.inItems, s.sawItems = true, true // "items:" with a null value, and its comment checked
	}
	s.head.Write(line)
	return true
}

// extend makes the last item's text run to the end of its line at lineEnd (an item's lines
// are consecutive).
func (s *splitter) extend(lineEnd int) {
	last := &s.items[len(s.items)-1]
	last.text = last.text[:len(last.text)+lineEnd-last.end]
	last.end = lineEnd
}

// rawItem is one entry of the items block: consecutive lines of the input.
type rawItem struct {
	indent int    // columns before its "- "
	text   []byte // its lines, with their line endings
	end    int    // offset in the input where text ends
}

// document is the entry as a YAML document of its own: its "- " and indent+2 columns of
// every other line removed.
func (r rawItem) document() []byte {
	out := make([]byte, 0, len(r.text))
	yamltext.Lines(r.text, func(i int, line []byte) {
		if i == 0 {
			rest := line[r.indent+1:] // after the dash
			if len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			out = append(out, rest...)
			return
		}
		out = append(out, yamltext.Dedent(line, r.indent+2)...)
	})
	return out
}

// entry is the entry as an element of a compact list at column 0, with "\n" line endings.
func (r rawItem) entry() []byte {
	out := make([]byte, 0, len(r.text))
	yamltext.Lines(r.text, func(_ int, line []byte) {
		out = append(out, yamltext.TrimEOL(yamltext.Dedent(line, r.indent))...)
		out = append(out, '\n')
	})
	return out
}
