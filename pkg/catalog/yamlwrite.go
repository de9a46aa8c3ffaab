package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yamlWriter writes the block-style YAML of snapshots: two-space
// indentation, sequences at their key's indentation ("- " then the item),
// keys in the order given (generic maps sorted), small records in flow style.
// It writes scalars plain only when every YAML 1.1 and 1.2 reader takes them
// for the same string, else double-quoted (or as a literal block when that
// keeps the text exactly). yaml.v3's encoder is not used: it keeps every
// event of a document until the document ends, which makes a catalog's
// snapshot cost hundreds of MB.
type yamlWriter struct {
	buf []byte
}

// field is one key of a record, written in order; a nil value is left out.
type field struct {
	key   string
	value any
}

// record is a map written with its keys in order.
type record []field

// flowRecord is a record written on one line ({a: 1, b: 2}).
type flowRecord []field

// flowList is a list of strings written on one line ([a, b]).
type flowList []string

// value writes v, which starts at the current position: after "- " (its
// first key or item then goes on the same line) or, when afterKey, after
// "key:". indent is the indentation of v's lines.
func (w *yamlWriter) value(v any, indent int, afterKey bool) error {
	switch x := v.(type) {
	case record:
		fields := x[:0:0]
		for _, f := range x {
			if f.value != nil && !isNilValue(f.value) {
				fields = append(fields, f)
			}
		}
		if len(fields) == 0 {
			w.put(" {}\n", afterKey)
			return nil
		}
		if afterKey {
			w.buf = append(w.buf, '\n')
			w.indent(indent)
		}
		for i, f := range fields {
			if i > 0 {
				w.indent(indent)
			}
			w.key(f.key, indent)
			if err := w.value(f.value, indent+2, true); err != nil {
				return err
			}
		}
		return nil
	case map[string]any, []any, jsonNull, jsonFlow:
		return w.json(v, indent, afterKey)
	case flowRecord:
		w.sep(afterKey)
		w.buf = append(w.buf, '{')
		first := true
		for _, f := range x {
			if f.value == nil || isNilValue(f.value) {
				continue
			}
			if !first {
				w.buf = append(w.buf, ", "...)
			}
			first = false
			w.scalarString(f.key, true, false)
			w.buf = append(w.buf, ": "...)
			if err := w.flowScalar(f.value); err != nil {
				return err
			}
		}
		w.buf = append(w.buf, "}\n"...)
		return nil
	case flowList:
		w.sep(afterKey)
		w.buf = append(w.buf, '[')
		for i, s := range x {
			if i > 0 {
				w.buf = append(w.buf, ", "...)
			}
			w.scalarString(s, true, false)
		}
		w.buf = append(w.buf, "]\n"...)
		return nil
	case string:
		w.sep(afterKey)
		w.str(x, indent)
		return nil
	}
	w.sep(afterKey)
	if err := w.flowScalar(v); err != nil {
		return err
	}
	w.buf = append(w.buf, '\n')
	return nil
}

// jsonFlow is canonical JSON text written as it is: a YAML flow collection (see
// canonicalJSON).
type jsonFlow []byte

// jsonNull marks a generic JSON tree as a record field's value: nil is then
// a JSON null (in records nil means "leave the field out").
type jsonNull struct{ v any }

// json writes a generic JSON tree (maps with sorted keys).
func (w *yamlWriter) json(v any, indent int, afterKey bool) error {
	switch x := v.(type) {
	case jsonNull:
		return w.json(x.v, indent, afterKey)
	case jsonFlow:
		w.sep(afterKey)
		w.buf = append(w.buf, x...)
		w.buf = append(w.buf, '\n')
		return nil
	case map[string]any:
		if len(x) == 0 {
			w.put(" {}\n", afterKey)
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if afterKey {
			w.buf = append(w.buf, '\n')
			w.indent(indent)
		}
		for i, k := range keys {
			if i > 0 {
				w.indent(indent)
			}
			w.key(k, indent)
			if err := w.json(x[k], indent+2, true); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if len(x) == 0 {
			w.put(" []\n", afterKey)
			return nil
		}
		if afterKey {
			w.buf = append(w.buf, '\n')
			indent -= 2
			w.indent(indent)
		}
		for i, e := range x {
			if i > 0 {
				w.indent(indent)
			}
			w.buf = append(w.buf, "- "...)
			if err := w.json(e, indent+2, false); err != nil {
				return err
			}
		}
		return nil
	case nil:
		w.put(" null\n", afterKey)
		return nil
	case string:
		w.sep(afterKey)
		w.str(x, indent)
		return nil
	case record, flowRecord, flowList:
		return w.value(v, indent, afterKey)
	}
	w.sep(afterKey)
	if err := w.flowScalar(v); err != nil {
		return err
	}
	w.buf = append(w.buf, '\n')
	return nil
}

func isNilValue(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case record:
		return len(x) == 0
	case flowList:
		return len(x) == 0
	case []any:
		return x == nil
	}
	return false
}

func (w *yamlWriter) put(s string, afterKey bool) {
	if !afterKey {
		s = s[1:]
	}
	w.buf = append(w.buf, s...)
}

func (w *yamlWriter) sep(afterKey bool) {
	if afterKey {
		w.buf = append(w.buf, ' ')
	}
}

func (w *yamlWriter) indent(n int) {
	for range n {
		w.buf = append(w.buf, ' ')
	}
}

// key writes "key:". YAML limits implicit keys to 1024 characters: a long
// key is written as an explicit one ("? key", then ":" on the next line).
func (w *yamlWriter) key(k string, indent int) {
	mark := len(w.buf)
	w.scalarString(k, false, true)
	if len(w.buf)-mark > 1000 { // written length: escapes count
		written := append([]byte("? "), w.buf[mark:]...)
		w.buf = append(append(w.buf[:mark], written...), '\n')
		w.indent(indent)
	}
	w.buf = append(w.buf, ':')
}

func (w *yamlWriter) flowScalar(v any) error {
	switch x := v.(type) {
	case string:
		w.scalarString(x, true, false)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case json.Number:
		if !jsonNumberText(string(x)) {
			return fmt.Errorf("not a JSON number: %q", string(x))
		}
		w.buf = append(w.buf, x...)
	case nil:
		w.buf = append(w.buf, "null"...)
	default:
		return fmt.Errorf("unsupported value type %T", v)
	}
	return nil
}

// str writes a string value of block context: plain, double-quoted, or a
// literal block whose lines are indented by indent.
func (w *yamlWriter) str(s string, indent int) {
	if strings.Contains(s, "\n") && literalOK(s) {
		w.buf = append(w.buf, '|')
		switch {
		case !strings.HasSuffix(s, "\n"):
			w.buf = append(w.buf, '-')
		case strings.HasSuffix(s, "\n\n"):
			w.buf = append(w.buf, '+')
		}
		w.buf = append(w.buf, '\n')
		body := strings.TrimSuffix(s, "\n")
		for line := range strings.SplitSeq(body, "\n") {
			if line != "" {
				w.indent(indent)
				w.buf = append(w.buf, line...)
			}
			w.buf = append(w.buf, '\n')
		}
		return
	}
	w.scalarString(s, false, false)
	w.buf = append(w.buf, '\n')
}

// literalOK: a literal block keeps s exactly (printable, no trailing
// blanks on a line, no carriage returns, no leading blank on the first
// line, which would need an indentation indicator).
func literalOK(s string) bool {
	if s == "" || s[0] == ' ' || s[0] == '\n' || strings.ContainsAny(s, "\r\t") {
		return false
	}
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasSuffix(line, " ") {
			return false
		}
	}
	for _, r := range s {
		if r != '\n' && !yamlPrintable(r) {
			return false
		}
	}
	return true
}

// scalarString writes a string plain when that is safe, else
// double-quoted.
func (w *yamlWriter) scalarString(s string, flowCtx, isKey bool) {
	if plainSafe(s, flowCtx, isKey) {
		w.buf = append(w.buf, s...)
		return
	}
	w.buf = append(w.buf, '"')
	start := 0 // s[start:i] is printable ASCII to copy as is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		w.buf = append(w.buf, s[start:i]...)
		r, size := rune(c), 1
		if c >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == '"':
			w.buf = append(w.buf, `\"`...)
		case r == '\\':
			w.buf = append(w.buf, `\\`...)
		case r == '\n':
			w.buf = append(w.buf, `\n`...)
		case r == '\t':
			w.buf = append(w.buf, `\t`...)
		case r == '\r':
			w.buf = append(w.buf, `\r`...)
		case r == utf8.RuneError && size == 1:
			w.buf = append(w.buf, `\uFFFD`...)
		case !yamlPrintable(r):
			if r > 0xFFFF {
				w.buf = fmt.Appendf(w.buf, `\U%08X`, r)
			} else {
				w.buf = fmt.Appendf(w.buf, `\u%04X`, r)
			}
		default:
			w.buf = append(w.buf, s[i:i+size]...)
		}
		i += size
		start = i
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
}

// yamlPrintable is YAML's c-printable, without the line breaks and tab
// (written as escapes), and without U+FEFF.
func yamlPrintable(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85:
		return false // a line break for YAML 1.1 readers
	case r >= 0xA0 && r <= 0xD7FF:
		return r != 0x2028 && r != 0x2029
	case r >= 0xE000 && r <= 0xFFFD:
		return r != 0xFEFF
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// plainSafe: s written plain reads back as the same string in YAML 1.1 and
// 1.2 (so kubectl, sigs.k8s.io/yaml and yaml.v3 agree). Numbers, dates and
// times all start with a digit, a sign or a dot: those are quoted.
func plainSafe(s string, flowCtx, isKey bool) bool {
	if s == "" || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9':
		return false
	case c == ' ', c == '-', c == '?', c == ':', c == ',', c == '[', c == ']', c == '{', c == '}', c == '#', c == '&', c == '*',
		c == '!', c == '|', c == '>', c == '\'', c == '"', c == '%', c == '@', c == '`', c == '=', c == '~', c == '.', c == '+':
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f:
			return false // keep plain scalars ASCII: quoting is always exact
		case c == ':' && (s[i+1] == ' ' || flowCtx): // s does not end with ':'
			return false
		case c == '#' && s[i-1] == ' ': // s does not start with '#'
			return false
		case flowCtx && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/'):
			return false // in flow context, only what no parser reads twice
		}
	}
	if len(s) <= 5 && yaml11Words[s] || isKey && s == "<<" {
		return false
	}
	return true
}

// yaml11Words resolve to booleans or null in YAML 1.1 or 1.2.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	"null": true, "Null": true, "NULL": true,
}

// jsonNumberText: the text of a JSON number.
func jsonNumberText(s string) bool {
	return s != "" && json.Valid([]byte(s)) && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}
