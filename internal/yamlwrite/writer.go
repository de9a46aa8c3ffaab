package yamlwrite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Writer appends block-style YAML to a buffer: two-space indentation, sequences at their
// key's column ("key:" then "- item"), generic mappings with their keys in byte order, empty
// collections as {} and [], strings as Choose decides.
type Writer struct {
	buf  []byte
	keys []string // a stack of the generic mappings' sorted keys, reused
}

// Fields is a mapping written with its keys in its own order; a field whose value is nil,
// "", empty Fields or FlowList, or a nil []any is left out.
type Fields interface {
	Len() int
	Field(i int) (key string, value any)
}

// FlowFields are Fields written on one line: {a: 1, b: 2}.
type FlowFields interface {
	Fields
	OneLine()
}

// FlowList is a list of strings written on one line: [a, b].
type FlowList []string

// Flow is text written as it is, on the line of its key or "- " (canonical JSON is a YAML
// flow collection).
type Flow []byte

// Nullable is a generic value tree as a field of Fields: nil is then written as null instead
// of leaving the field out.
type Nullable interface {
	OrNull() any
}

// NewWriter is a writer under rule whose buffer starts with room for size bytes.
func NewWriter(size int) *Writer {
	return &Writer{buf: make([]byte, 0, size)}
}

// Bytes is what was written.
func (w *Writer) Bytes() []byte { return w.buf }

// Raw appends text as it is.
func (w *Writer) Raw(s string) { w.buf = append(w.buf, s...) }

// Indent appends n spaces.
func (w *Writer) Indent(n int) { w.buf = appendSpaces(w.buf, n) }

// Document writes v as a document of its own.
func (w *Writer) Document(v any) error {
	switch v.(type) {
	case map[string]any, []any, Fields:
		return w.Value(v, 0, false)
	}
	return w.Value(v, 2, false) // yaml.v3 indents a root scalar's lines
}

// Value writes v where the writer is: after "key:" when afterKey (a space or a line break
// comes first), else after "- " or at the start of a line (the first key or item of a
// collection goes on the current line). indent is the column of v's keys, of the items of a
// sequence that is not after a key, and of a literal block's lines.
func (w *Writer) Value(v any, indent int, afterKey bool) error {
	switch x := v.(type) {
	case map[string]any:
		return w.mapping(x, indent, afterKey)
	case []any:
		return w.sequence(x, indent, afterKey)
	case FlowList, Flow, FlowFields:
		w.space(afterKey)
		return w.flow(x)
	case Fields:
		return w.fields(x, indent, afterKey)
	case Nullable:
		return w.Value(x.OrNull(), indent, afterKey)
	case string:
		w.space(afterKey)
		w.str(x, InValue, indent)
		w.endLine()
		return nil
	}
	w.space(afterKey)
	if err := w.scalar(v); err != nil {
		return err
	}
	w.endLine()
	return nil
}

func (w *Writer) fields(r Fields, indent int, afterKey bool) error {
	n := 0
	for i := range r.Len() {
		k, v := r.Field(i)
		if leftOut(v) {
			continue
		}
		if err := w.entry(n, k, v, indent, afterKey); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		w.empty("{}", afterKey)
	}
	return nil
}

func leftOut(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case Fields:
		return x.Len() == 0
	case FlowList:
		return len(x) == 0
	case []any:
		return x == nil
	}
	return false
}

func (w *Writer) mapping(m map[string]any, indent int, afterKey bool) error {
	if len(m) == 0 {
		w.empty("{}", afterKey)
		return nil
	}
	start := len(w.keys)
	for k := range m {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys[start:])
	defer func() { w.keys = w.keys[:start] }()
	for i := range len(m) {
		k := w.keys[start+i] // w.keys may grow while the values are written
		if err := w.entry(i, k, m[k], indent, afterKey); err != nil {
			return err
		}
	}
	return nil
}

// entry writes the i-th "key: value" of a mapping whose keys are at column indent.
func (w *Writer) entry(i int, k string, v any, indent int, afterKey bool) error {
	if i == 0 && afterKey {
		w.buf = append(w.buf, '\n')
	}
	if i > 0 || afterKey {
		w.Indent(indent)
	}
	if !SimpleKey(k) { // "? key", then ": value" as after "- "
		w.buf = append(w.buf, "? "...)
		w.str(k, InExplicitKey, indent+2)
		w.endLine()
		w.Indent(indent)
		w.buf = append(w.buf, ": "...)
		return w.Value(v, indent+2, false)
	}
	w.str(k, InKey, indent)
	w.buf = append(w.buf, ':')
	return w.Value(v, indent+2, true)
}

func (w *Writer) sequence(l []any, indent int, afterKey bool) error {
	if len(l) == 0 {
		w.empty("[]", afterKey)
		return nil
	}
	if afterKey { // at the key's column
		w.buf = append(w.buf, '\n')
		indent -= 2
		w.Indent(indent)
	}
	for i, e := range l {
		if i > 0 {
			w.Indent(indent)
		}
		w.buf = append(w.buf, "- "...)
		if err := w.Value(e, indent+2, false); err != nil {
			return err
		}
	}
	return nil
}

// flow writes FlowFields, a FlowList or Flow text and ends the line.
func (w *Writer) flow(v any) error {
	switch x := v.(type) {
	case FlowFields:
		w.buf = append(w.buf, '{')
		n := 0
		for i := range x.Len() {
			k, v := x.Field(i)
			if leftOut(v) {
				continue
			}
			if n > 0 {
				w.buf = append(w.buf, ", "...)
			}
			n++
			w.str(k, InFlow, 0)
			w.buf = append(w.buf, ": "...)
			if err := w.scalar(v); err != nil {
				return err
			}
		}
		w.buf = append(w.buf, '}')
	case FlowList:
		w.buf = append(w.buf, '[')
		for i, s := range x {
			if i > 0 {
				w.buf = append(w.buf, ", "...)
			}
			w.str(s, InFlow, 0)
		}
		w.buf = append(w.buf, ']')
	case Flow:
		w.buf = append(w.buf, x...)
	}
	w.buf = append(w.buf, '\n')
	return nil
}

// scalar writes a string (in flow context), a boolean, a JSON number or null.
func (w *Writer) scalar(v any) error {
	switch x := v.(type) {
	case string:
		w.str(x, InFlow, 0)
	case bool:
		if x {
			w.buf = append(w.buf, "true"...)
		} else {
			w.buf = append(w.buf, "false"...)
		}
	case json.Number:
		b, err := appendNumber(w.buf, x)
		if err != nil {
			return err
		}
		w.buf = b
	case nil:
		w.buf = append(w.buf, "null"...)
	default:
		return fmt.Errorf("unsupported value type %T", v)
	}
	return nil
}

// str writes a string as Choose decides (invalid UTF-8 becomes U+FFFD: YAML is UTF-8).
func (w *Writer) str(s string, at Position, indent int) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	w.buf = appendString(w.buf, s, Choose(s, at), indent)
}

// empty writes an empty collection, after a space when it follows a key.
func (w *Writer) empty(s string, afterKey bool) {
	w.space(afterKey)
	w.buf = append(append(w.buf, s...), '\n')
}

func (w *Writer) space(afterKey bool) {
	if afterKey {
		w.buf = append(w.buf, ' ')
	}
}

// endLine ends the line unless a literal block ended it.
func (w *Writer) endLine() {
	if n := len(w.buf); n == 0 || w.buf[n-1] != '\n' {
		w.buf = append(w.buf, '\n')
	}
}
