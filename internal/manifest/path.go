package manifest

import (
	"strconv"
	"strings"
)

// PathStep is one step of a field path: a map key or a list index.
type PathStep struct {
	Key     string
	Index   int
	IsIndex bool
}

// Field builds a field path the way diagnostics print it: dotted keys, "[i]" for list
// indices, and ["key"] for keys that contain a dot or a bracket (label and annotation keys).
func Field(base string, steps ...any) string {
	var b strings.Builder
	b.WriteString(base)
	for _, s := range steps {
		switch s := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		case string:
			if strings.ContainsAny(s, ".[]\"") || s == "" {
				b.WriteString("[" + strconv.Quote(s) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

// SplitPath parses a path written by Field. Malformed parts end the path early.
func SplitPath(path string) []PathStep {
	var steps []PathStep
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(path[i:], ']')
			if i+1 < len(path) && path[i+1] == '"' {
				s, rest, ok := unquotePrefix(path[i+1:])
				if !ok || !strings.HasPrefix(rest, "]") {
					return steps
				}
				steps = append(steps, PathStep{Key: s})
				i = len(path) - len(rest) + 1
				continue
			}
			if end < 0 {
				return steps
			}
			n, err := strconv.Atoi(path[i+1 : i+end])
			if err != nil {
				return steps
			}
			steps = append(steps, PathStep{Index: n, IsIndex: true})
			i += end + 1
		default:
			end := strings.IndexAny(path[i:], ".[")
			if end < 0 {
				end = len(path) - i
			}
			steps = append(steps, PathStep{Key: path[i : i+end]})
			i += end
		}
	}
	return steps
}

func unquotePrefix(s string) (string, string, bool) {
	for j := 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == '"' {
			u, err := strconv.Unquote(s[:j+1])
			return u, s[j+1:], err == nil
		}
	}
	return "", s, false
}
