package manifest

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

// parallelMinBytes is the size from which Decode parses a stream's documents on every core.
const parallelMinBytes = 256 << 10

// parallelBatch is how many documents are parsed at a time: their node trees (several times
// the text) are held only until they are converted, in order.
const parallelBatch = 256

// decodeParallel is Decode for large streams of plain layout: the stream is cut at its
// "---" lines (YAML forbids them at column 0 inside any node, so they always start a
// document), the documents are parsed on every core a batch at a time, and converted in
// order with one Converter, so values, sources and the alias budget are what the sequential
// decode gives. ok is false, and the caller decodes sequentially, for any layout it does not
// handle (directives, "..." markers, "--- value", line breaks other than "\n" and "\r\n",
// text that is not UTF-8) and for any error, so that errors are exactly the sequential
// decode's, and for streams shorter than minBytes.
func decodeParallel(file string, data []byte, minBytes int) (out []*Object, ok bool) {
	if len(data) < minBytes || runtime.GOMAXPROCS(0) < 2 || !yamltext.OnlyNewlineBreaks(data) ||
		bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || !utf8.Valid(data) {
		return nil, false
	}
	docs, ok := splitDocuments(data)
	if !ok {
		return nil, false
	}
	conv := Converter{Budget: 10*len(data) + 10000}
	lines := lineIndex{data: data}
	parsed := make([]*yaml.Node, parallelBatch)
	fast := make([]fastResult, parallelBatch)
	failed := make([]bool, parallelBatch)
	for start := 0; start < len(docs); start += parallelBatch {
		batch := docs[start:min(start+parallelBatch, len(docs))]
		onCores(len(batch), func(i int) {
			if fast[i] = safeFastDocument(batch[i].text, batch[i].line); !fast[i].ok {
				parsed[i], failed[i] = parseDocument(batch[i])
			}
		})
		for i := range batch {
			if f := fast[i]; f.ok {
				fast[i] = fastResult{}
				// the nodes count against the alias budget as the Converter counts them
				// (keys too: never fewer)
				if !conv.Spend(f.nodes) {
					return nil, false
				}
				obj := &Object{Map: f.root, Source: Source{File: file, Index: start + i, Line: f.line, doc: lines.doc(f.line)}}
				if isListObject(obj) {
					return nil, false // its items' lines come from yaml.v3's nodes
				}
				out = append(out, obj)
				continue
			}
			if failed[i] {
				return nil, false
			}
			var err error
			if out, err = appendDocument(out, file, start+i, parsed[i], &conv, &lines); err != nil {
				return nil, false
			}
			parsed[i] = nil
		}
	}
	return out, true
}

// document is one document's text and the line (1-based) it starts on.
type document struct {
	text []byte
	line int
}

// splitDocuments cuts a stream at its "---" lines. Blanks and comments before the first
// marker belong to its document (for yaml.v3 they are no document of their own); other text
// before it is a document.
func splitDocuments(data []byte) ([]document, bool) {
	var docs []document
	curStart, curLine := 0, 1
	hasContent, started := false, false
	line := 1
	for start := 0; start < len(data); line++ {
		text, end := yamltext.Next(data, start)
		content := yamltext.TrimEOL(text)
		switch {
		case len(content) > 0 && content[0] == '%', yamltext.IsDocMarker(content, "..."):
			return nil, false
		case yamltext.IsDocMarker(content, "---"):
			if rest := bytes.TrimSpace(content[3:]); len(rest) > 0 && rest[0] != '#' {
				return nil, false // "--- value" or a tag
			}
			if started || hasContent {
				docs = append(docs, document{text: data[curStart:start], line: curLine})
				curStart, curLine = start, line
			} // else: blanks and comments before the first marker go with its document
			started, hasContent = true, false
		case !hasContent && yamltext.HasContent(content):
			hasContent = true
		}
		start = end
	}
	// the last document (or the whole stream, when it is only blanks and comments: parsed
	// all the same, so that what yaml.v3 refuses in it sends the stream to the sequential decode)
	docs = append(docs, document{text: data[curStart:], line: curLine})
	return docs, true
}

// parseDocument parses one document's text with its nodes' lines counted from the start
// of the stream; failed is true when the text is not exactly one document without errors.
func parseDocument(d document) (doc *yaml.Node, failed bool) {
	defer func() {
		if recover() != nil {
			doc, failed = nil, true
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(d.text))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		return nil, true
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, true
	}
	if d.line > 1 {
		shiftLines(&n, d.line-1)
	}
	return &n, false
}

// shiftLines adds shift to the line of every node of a tree. Content never forms a cycle:
// an alias node refers to its anchor through Alias, which is not followed.
func shiftLines(n *yaml.Node, shift int) {
	n.Line += shift
	for _, c := range n.Content {
		shiftLines(c, shift)
	}
}

// fastResult is a document fastDocument parsed.
type fastResult struct {
	root  map[string]any
	line  int
	nodes int
	ok    bool
}

// isListObject reports an object Decode flattens (a v1 List with items).
func isListObject(o *Object) bool {
	_, hasItems := o.Map["items"].([]any)
	return hasItems && strings.HasSuffix(o.Kind(), "List") && o.APIVersion() == "v1"
}
