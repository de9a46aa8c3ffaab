package manifest

import (
	"encoding/json"
	"strings"
	"sync"
)

// appendYAML writes v as MarshalYAML does, byte for byte, without yaml.v3's encoder: the
// layout (two-space indentation, sequences at their key's column, empty collections in flow
// style, keys in byte order) is written here, and each scalar's text is what yaml.v3 writes
// for it on a line of its own, asked once per distinct scalar and remembered (scalarText).
// ok is false for anything it does not write exactly as yaml.v3 would (a scalar yaml.v3
// writes on several lines, a key it writes as "? key", a value of another type): the caller
// then uses yaml.v3. FuzzFastYAMLAgrees holds the two to the same bytes.
func appendYAML(buf []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return append(buf, "{}\n"...), true
		}
		return appendMapping(buf, x, 0, false)
	case []any:
		if len(x) == 0 {
			return append(buf, "[]\n"...), true
		}
		return appendSequence(buf, x, 0, false)
	}
	text, ok := scalarText(v, false)
	if !ok {
		return nil, false
	}
	return append(append(buf, text...), '\n'), true
}

// appendMapping writes a non-empty mapping at column indent; inline is true when its first
// key goes on the current line (after "- ").
func appendMapping(buf []byte, m map[string]any, indent int, inline bool) ([]byte, bool) {
	for i, k := range SortedKeys(m) {
		if i > 0 || !inline {
			buf = appendSpaces(buf, indent)
		}
		key, ok := scalarText(k, true)
		if !ok {
			return nil, false
		}
		buf = append(append(buf, key...), ':')
		switch x := m[k].(type) {
		case map[string]any:
			if len(x) == 0 {
				buf = append(buf, " {}\n"...)
				continue
			}
			buf = append(buf, '\n')
			if buf, ok = appendMapping(buf, x, indent+2, false); !ok {
				return nil, false
			}
		case []any:
			if len(x) == 0 {
				buf = append(buf, " []\n"...)
				continue
			}
			buf = append(buf, '\n')
			if buf, ok = appendSequence(buf, x, indent, false); !ok {
				return nil, false
			}
		default:
			text, ok := scalarText(x, false)
			if !ok {
				return nil, false
			}
			buf = append(append(append(buf, ' '), text...), '\n')
		}
	}
	return buf, true
}

// appendSequence writes a non-empty sequence whose "- " are at column indent; inline is true
// when its first "- " goes on the current line (a sequence in a sequence).
func appendSequence(buf []byte, l []any, indent int, inline bool) ([]byte, bool) {
	var ok bool
	for i, e := range l {
		if i > 0 || !inline {
			buf = appendSpaces(buf, indent)
		}
		buf = append(buf, "- "...)
		switch x := e.(type) {
		case map[string]any:
			if len(x) == 0 {
				buf = append(buf, "{}\n"...)
				continue
			}
			if buf, ok = appendMapping(buf, x, indent+2, true); !ok {
				return nil, false
			}
		case []any:
			if len(x) == 0 {
				buf = append(buf, "[]\n"...)
				continue
			}
			if buf, ok = appendSequence(buf, x, indent+2, true); !ok {
				return nil, false
			}
		default:
			text, ok := scalarText(x, false)
			if !ok {
				return nil, false
			}
			buf = append(append(buf, text...), '\n')
		}
	}
	return buf, true
}

func appendSpaces(buf []byte, n int) []byte {
	for range n {
		buf = append(buf, ' ')
	}
	return buf
}

// scalarKey is a scalar as a key or as a value (yaml.v3 quotes some strings only as values:
// ValueNode marks YAML 1.1 words), with its type.
type scalarKey struct {
	key  bool
	kind byte // 's' string, 'n' number
	text string
}

// scalarTexts remembers what yaml.v3 writes for each scalar ("" when it is not one line).
var scalarTexts sync.Map // scalarKey → string

// maxScalarTexts bounds what is remembered; past it, scalars are asked each time.
const maxScalarTexts = 1 << 20

var scalarTextCount int64
var scalarTextMu sync.Mutex

// scalarText is the text yaml.v3 writes for a scalar on a line of its own (after "key: ",
// after "- ", or as a key before ":"); ok is false when it writes something else.
func scalarText(v any, asKey bool) (string, bool) {
	var k scalarKey
	switch x := v.(type) {
	case nil:
		if asKey {
			return "", false
		}
		return "null", true
	case bool:
		if asKey {
			return "", false
		}
		if x {
			return "true", true
		}
		return "false", true
	case string:
		if plainWord(x) {
			return x, true
		}
		k = scalarKey{key: asKey, kind: 's', text: x}
	case json.Number:
		if asKey {
			return "", false
		}
		k = scalarKey{kind: 'n', text: string(x)}
	default:
		return "", false
	}
	if t, found := scalarTexts.Load(k); found {
		s := t.(string)
		return s, s != ""
	}
	s := askYAML(k)
	scalarTextMu.Lock()
	if scalarTextCount < maxScalarTexts {
		scalarTextCount++
		scalarTexts.Store(k, s)
	}
	scalarTextMu.Unlock()
	return s, s != ""
}

// askYAML is what yaml.v3 writes for a scalar, from a one-key document: the part after
// "x: " (a value) or before ": null" (a key), "" when that is not a single plain line.
func askYAML(k scalarKey) string {
	var doc map[string]any
	switch {
	case k.key:
		doc = map[string]any{k.text: nil}
	case k.kind == 'n':
		doc = map[string]any{"x": json.Number(k.text)}
	default:
		doc = map[string]any{"x": k.text}
	}
	n, err := ValueNode(doc)
	if err != nil {
		return ""
	}
	b, err := MarshalNode(n)
	if err != nil {
		return ""
	}
	s := string(b)
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		return ""
	}
	s = strings.TrimSuffix(s, "\n")
	if k.key {
		text, ok := strings.CutSuffix(s, ": null")
		if !ok || strings.HasPrefix(text, "? ") || text == "" {
			return ""
		}
		return text
	}
	text, ok := strings.CutPrefix(s, "x: ")
	if !ok {
		return ""
	}
	return text
}

// plainWord reports a string yaml.v3 writes as it is, as a key or a value, without asking:
// a letter, then letters, digits, '-', '.', '_' and '/', at most 64 bytes (yaml.v3 writes a
// key over 128 as "? key"), and not a word YAML 1.1 or 1.2 reads as something else, in any
// case. The fuzz test holds this to what yaml.v3 writes.
func plainWord(s string) bool { return len(s) <= 64 && plainScalar(s, false) }

// plainScalar reports a letter, then letters, digits, '-', '.', '_', '/' (and spaces when
// spaces is true), that is not one of the words YAML reads as a boolean, null or number.
func plainScalar(s string, spaces bool) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/' || spaces && c == ' ') {
			return false
		}
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf":
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
