package krm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Result is one entry of the ResourceList's results (the functions specification's fields).
type Result struct {
	Severity string // error, warning or info
	Message  string
	// ResourceRef is the object the result is about, nil for the whole run.
	ResourceRef *manifest.Ref
	// Field is a path inside that object.
	Field string
	// File and Index locate the object in the orchestrator's package.
	File  string
	Index int
}

// value is the result as the specification spells it (omitting what is unset).
func (r Result) value() map[string]any {
	m := map[string]any{"message": r.Message, "severity": r.Severity}
	if r.ResourceRef != nil {
		ref := map[string]any{"apiVersion": r.ResourceRef.APIVersion, "kind": r.ResourceRef.Kind, "name": r.ResourceRef.Name}
		if r.ResourceRef.Namespace != "" {
			ref["namespace"] = r.ResourceRef.Namespace
		}
		m["resourceRef"] = ref
	}
	if r.Field != "" {
		m["field"] = map[string]any{"path": r.Field}
	}
	if r.File != "" {
		file := map[string]any{"path": r.File}
		if r.Index != 0 {
			file["index"] = json.Number(strconv.Itoa(r.Index))
		}
		m["file"] = file
	}
	return m
}

// Writer writes the ResourceList that answers an input: items one at a time, as they are
// given, then the input's functionConfig and the results. Nothing is buffered beyond one
// item, so memory does not grow with the output.
type Writer struct {
	out     *bufio.Writer
	format  annotationFormat
	fc      *yaml.Node
	items   int
	scratch bytes.Buffer
	err     error
}

// NewWriter starts the answer to rl on w.
func (rl *ResourceList) NewWriter(w io.Writer) *Writer {
	wr := &Writer{out: bufio.NewWriterSize(w, 64<<10), format: rl.format, fc: rl.functionConfigNode}
	fmt.Fprintf(wr.out, "apiVersion: %s\nkind: %s\n", quoteIfNeeded(rl.APIVersion), rl.Kind)
	return wr
}

// Keep writes an input item back exactly as it came (comments and styles kept).
func (w *Writer) Keep(it *Item) {
	if it.raw.text != nil {
		w.startEntry()
		w.write(it.raw.entry())
		return
	}
	if it.node == nil || !selfContained(it.node) {
		// an alias to an anchor of another item would dangle: write its expanded value
		w.writeEntry(manifest.MarshalYAML(it.Object.Map))
		return
	}
	w.writeEntry(manifest.MarshalNode(it.node))
}

// Add writes an object the function made. Its file annotations are reconciled with the
// input's format (see reconcile), which modifies obj.
func (w *Writer) Add(obj *manifest.Object) {
	w.format.reconcile(obj)
	w.writeEntry(manifest.MarshalYAML(obj.Map))
}

// Close writes the functionConfig and the results, and flushes. It returns the first
// error of the whole writing.
func (w *Writer) Close(results []Result) error {
	if w.items == 0 {
		w.write([]byte("items: []\n"))
	}
	if w.fc != nil {
		w.write([]byte("functionConfig:\n"))
		b, err := manifest.MarshalNode(w.fc)
		if err == nil && !selfContained(w.fc) {
			err = fmt.Errorf("functionConfig refers to an anchor outside it")
		}
		w.writeIndented(b, err, "  ", "  ")
	}
	if len(results) > 0 {
		w.write([]byte("results:\n"))
		for _, r := range results {
			b, err := manifest.MarshalYAML(r.value())
			w.writeIndented(b, err, "- ", "  ")
		}
	}
	if w.err != nil {
		return w.err
	}
	return w.out.Flush()
}

// writeEntry writes one YAML document as an element of the items list.
func (w *Writer) writeEntry(doc []byte, err error) {
	w.startEntry()
	w.writeIndented(doc, err, "- ", "  ")
}

// startEntry counts an item, writing the "items:" key before the first.
func (w *Writer) startEntry() {
	if w.items == 0 {
		w.write([]byte("items:\n"))
	}
	w.items++
}

// writeIndented writes doc's lines, the first after first and the others after rest; an
// empty line stays empty (inside a block scalar it is an empty line either way).
func (w *Writer) writeIndented(doc []byte, err error, first, rest string) {
	if err != nil && w.err == nil {
		w.err = err
	}
	if w.err != nil {
		return
	}
	w.scratch.Reset()
	prefix := first
	for len(doc) > 0 {
		line := doc
		next := []byte(nil)
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, next = doc[:i], doc[i+1:]
		}
		if len(line) > 0 {
			w.scratch.WriteString(prefix)
			w.scratch.Write(line)
		} else if prefix == first {
			w.scratch.WriteString(first[:len(first)-1]) // "-": an empty first line
		}
		w.scratch.WriteByte('\n')
		prefix = rest
		doc = next
	}
	w.write(w.scratch.Bytes())
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.out.Write(b); err != nil {
		w.err = err
	}
}

// selfContained reports whether every alias under n refers to an anchor under n.
func selfContained(n *yaml.Node) bool {
	anchors := map[*yaml.Node]bool{}
	var aliases []*yaml.Node
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Anchor != "" {
			anchors[n] = true
		}
		if n.Kind == yaml.AliasNode {
			aliases = append(aliases, n.Alias)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	for _, a := range aliases {
		if !anchors[a] {
			return false
		}
	}
	return true
}

// quoteIfNeeded keeps an unusual apiVersion a string.
func quoteIfNeeded(s string) string {
	b, err := manifest.MarshalYAML(s)
	if err != nil {
		return `""`
	}
	return string(bytes.TrimSuffix(b, []byte("\n")))
}
