package secret

import (
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Fields are the fields of one object that hold a value derived from a Secret, as paths of
// map keys and list indices (an empty path is the whole object). A value read from a Secret
// stays a Secret's value wherever it is copied: the render records where it writes one, and
// a later read of that field, or of anything that contains it, is a read of a Secret. The
// zero value holds nothing; only Add and AddAll modify the Fields they are called on.
type Fields struct {
	paths map[string][]manifest.PathStep
}

// Add marks the field at path (and everything under it).
func (f *Fields) Add(path []manifest.PathStep) {
	if f.paths == nil {
		f.paths = map[string][]manifest.PathStep{}
	}
	f.paths[encode(path)] = append([]manifest.PathStep(nil), path...)
}

// AddAll marks every field other marks.
func (f *Fields) AddAll(other Fields) {
	for _, p := range other.paths {
		f.Add(p)
	}
}

// Empty reports whether no field is marked.
func (f Fields) Empty() bool { return len(f.paths) == 0 }

// Overlaps reports whether reading the value at path reads a marked value: a marked field at
// path, under it (the value read contains it) or above it (the value read is part of it).
func (f Fields) Overlaps(path []manifest.PathStep) bool {
	for _, p := range f.paths {
		if isPrefix(p, path) || isPrefix(path, p) {
			return true
		}
	}
	return false
}

// Under returns the marks at or below prefix, relative to it: the fields of the value at
// prefix that hold a Secret's value (all of it when a mark is at or above prefix).
func (f Fields) Under(prefix []manifest.PathStep) Fields {
	var out Fields
	for _, p := range f.paths {
		switch {
		case isPrefix(p, prefix):
			out.Add(nil)
		case isPrefix(prefix, p):
			out.Add(p[len(prefix):])
		}
	}
	return out
}

// Prefixed returns the marks with prefix before each: the same fields, as seen from a value
// that holds this one at prefix.
func (f Fields) Prefixed(prefix []manifest.PathStep) Fields {
	var out Fields
	for _, p := range f.paths {
		out.Add(append(append([]manifest.PathStep(nil), prefix...), p...))
	}
	return out
}

// ReadBy reports whether evaluating an objpath path (docs/semantics.md, Templating: "+"-joined parts, JSONPath
// for parts that start with ".") on the object reads a marked value. A JSONPath part made of
// plain .field and [index] steps reads one field; any other (wildcards, filters, recursive
// descent, unions) may read, or choose by, anything, so it reads a marked value whenever
// there is one.
func (f Fields) ReadBy(path string) bool {
	if f.Empty() {
		return false
	}
	for _, part := range strings.Split(path, "+") {
		if !strings.HasPrefix(part, ".") || len(part) <= 1 {
			continue // a literal
		}
		steps, ok := jsonPathSteps(part)
		if !ok || f.Overlaps(steps) {
			return true
		}
	}
	return false
}

// jsonPathSteps parses a JSONPath expression made only of .field steps (letters, digits, _
// and -) and [n] indices; ok is false for anything else.
func jsonPathSteps(expr string) (steps []manifest.PathStep, ok bool) {
	for i := 0; i < len(expr); {
		switch expr[i] {
		case '.':
			j := i + 1
			for j < len(expr) && isFieldChar(expr[j]) {
				j++
			}
			if j == i+1 {
				return nil, false
			}
			steps = append(steps, manifest.PathStep{Key: expr[i+1 : j]})
			i = j
		case '[':
			end := strings.IndexByte(expr[i:], ']')
			if end < 0 {
				return nil, false
			}
			n, err := strconv.Atoi(expr[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, false
			}
			steps = append(steps, manifest.PathStep{Index: n, IsIndex: true})
			i += end + 1
		default:
			return nil, false
		}
	}
	return steps, true
}

func isFieldChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// isPrefix reports whether p is a prefix of q (or equal to it).
func isPrefix(p, q []manifest.PathStep) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// encode is a path's identity (keys may hold any character).
func encode(path []manifest.PathStep) string {
	var b strings.Builder
	for _, s := range path {
		if s.IsIndex {
			b.WriteString("i" + strconv.Itoa(s.Index) + "\x00")
			continue
		}
		b.WriteString("k" + strconv.Quote(s.Key) + "\x00")
	}
	return b.String()
}
