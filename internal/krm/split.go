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
	var head bytes.Buffer
	inItems, sawItems := false, false
	p := -1 // the entries' indentation
	// extend makes the last item's text run to the end of line (its lines are consecutive)
	extend := func(lineEnd int) {
		last := &items[len(items)-1]
		last.text = last.text[:len(last.text)+lineEnd-last.end]
		last.end = lineEnd
	}
	for start := 0; start < len(data); {
		line, end := yamltext.Next(data, start)
		lineStart := start
		start = end
		content := yamltext.TrimEOL(line)
		if bytes.HasPrefix(content, []byte("\t")) || bytes.HasPrefix(content, []byte("%")) ||
			bytes.HasPrefix(content, []byte("---")) || bytes.HasPrefix(content, []byte("...")) {
			return nil, nil, false
		}
		indent := yamltext.Indent(content)
		blank, comment := yamltext.IsBlank(content), yamltext.IsComment(content)
		if inItems {
			switch {
			case blank || comment:
				if len(items) > 0 {
					extend(end)
				} else {
					head.Write(line) // parsed with the header, so that nothing goes unchecked
				}
				continue
			case p < 0 && yamltext.IsListEntry(content, indent):
				p = indent
				items = append(items, rawItem{indent: p, text: data[lineStart:end:len(data)], end: end})
				continue
			case indent == p && yamltext.IsListEntry(content, indent):
				items = append(items, rawItem{indent: p, text: data[lineStart:end:len(data)], end: end})
				continue
			case p >= 0 && indent > p:
				if indent < p+2 {
					return nil, nil, false
				}
				extend(end)
				continue
			case indent == 0 && p > 0 && yamltext.IsListEntry(content, 0):
				return nil, nil, false
			case indent != 0:
				return nil, nil, false
			}
			inItems = false // a top-level key: the items block ended
		}
		if indent == 0 && !blank && !comment && yamltext.IsKey(content, "items") {
			if sawItems {
				return nil, nil, false
			}
			rest := bytes.TrimSpace(content[len("items:"):])
			if len(rest) > 0 && rest[0] != '#' {
				return nil, nil, false // items on the key's line (flow style, null, an alias)
			}
			inItems, sawItems = true, true
			head.Write(line) // "items:" with a null value, and its comment checked
			continue
		}
		head.Write(line)
	}
	if !sawItems {
		return nil, nil, false
	}
	return head.Bytes(), items, true
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
