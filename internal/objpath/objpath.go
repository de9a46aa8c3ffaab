// Package objpath owns ODLM's path language for reading a value out of an object (the
// `path` of templating objectRefs, the `key` of optionalFields matchExpressions) and for
// removing a field (optionalFields `remove`).
//
// Evaluate splits the path on "+"; a part that starts with "." (and is longer than ".") is a
// client-go JSONPath expression, every other part is a literal; the results are concatenated.
// So "data.x" is the literal string "data.x", and ".spec.host+:443" joins a field and a
// literal. It never modifies the object.
package objpath

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// Evaluate returns the string ODLM computes for path on obj. A missing field anywhere in
// the path makes the whole path "" (docs/semantics.md, Templating: ".spec.nothere+-suffix" is "", not "-suffix");
// other JSONPath errors (a malformed expression, an index out of range) are returned.
func Evaluate(path string, obj map[string]any) (string, error) {
	var b strings.Builder
	var data any
	for _, part := range strings.Split(path, "+") {
		if !strings.HasPrefix(part, ".") || len(part) <= 1 {
			b.WriteString(part)
			continue
		}
		if data == nil {
			data = unstructuredNumbers(obj)
		}
		s, found, err := evalJSONPath(part, data)
		if err != nil {
			return "", err
		}
		if !found {
			return "", nil
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func evalJSONPath(expr string, data any) (s string, found bool, err error) {
	// client-go's JSONPath has panicked on odd expressions and data in the past: a path a
	// user writes must never take the render down
	defer func() {
		if p := recover(); p != nil {
			s, found, err = "", false, fmt.Errorf("path %q cannot be evaluated", expr)
		}
	}()
	jp := jsonpath.New("odlm")
	if err := jp.Parse("{" + expr + "}"); err != nil {
		return "", false, fmt.Errorf("path %q: %w", expr, err)
	}
	results, err := jp.FindResults(data)
	if err != nil {
		if strings.Contains(err.Error(), "not found") {
			return "", false, nil
		}
		if strings.Contains(err.Error(), "cannot be filtered") {
			// client-go prints the value here, which may come from a Secret
			return "", false, fmt.Errorf("path %q: a filter ([?(...)]) is applied to a value that is not a list", expr)
		}
		return "", false, fmt.Errorf("path %q: %w", expr, err)
	}
	var parts []string
	for _, set := range results {
		for _, v := range set {
			s, err := format(v)
			if err != nil {
				return "", false, fmt.Errorf("path %q: %w", expr, err)
			}
			parts = append(parts, s)
		}
	}
	if visitsMaps(expr) {
		// ".*" and ".." return a map's values in Go's map order, which changes from run to
		// run (in ODLM too): sorted, the same inputs give the same output
		sort.Strings(parts)
	}
	return strings.Join(parts, " "), true, nil
}

// visitsMaps reports an expression with a wildcard (.*) or a recursive descent (..), the
// steps that go through every value of a map.
func visitsMaps(expr string) bool {
	if !strings.Contains(expr, "*") && !strings.Contains(expr, "..") {
		return false
	}
	p, err := jsonpath.Parse("odlm", "{"+expr+"}")
	if err != nil {
		return false
	}
	return hasMapSteps(p.Root)
}

func hasMapSteps(n jsonpath.Node) bool {
	switch n := n.(type) {
	case *jsonpath.WildcardNode, *jsonpath.RecursiveNode:
		return true
	case *jsonpath.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if hasMapSteps(c) {
				return true
			}
		}
	case *jsonpath.FilterNode:
		return hasMapSteps(n.Left) || hasMapSteps(n.Right)
	case *jsonpath.UnionNode:
		for _, l := range n.Nodes {
			if hasMapSteps(l) {
				return true
			}
		}
	}
	return false
}

// format prints one JSONPath result the way ODLM's objects print: strings raw, numbers as
// Go prints int64/float64, booleans as true/false, null as <nil>, maps and lists as
// compact JSON.
func format(v reflect.Value) (string, error) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "<nil>", nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Map, reflect.Slice:
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return "", err
		}
		return string(b), nil
	case reflect.Invalid:
		return "<nil>", nil
	default:
		return fmt.Sprint(v.Interface()), nil
	}
}

// unstructuredNumbers copies a value tree, turning json.Number into int64 (when integral
// and in range) or float64, as Kubernetes' unstructured objects hold them.
func unstructuredNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = unstructuredNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = unstructuredNumbers(e)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return string(v)
	default:
		return v
	}
}

// Remove deletes the field at a dotted path ("spec.a.b", leading "." optional; "name[i]"
// steps into element i of list "name"). Missing parts make it a no-op. It reports whether
// something was removed.
func Remove(obj map[string]any, path string) bool {
	steps := strings.Split(strings.TrimPrefix(path, "."), ".")
	var cur any = obj
	for i, step := range steps {
		name, index, hasIndex := splitIndex(step)
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		last := i == len(steps)-1
		if !hasIndex {
			if last {
				_, present := m[name]
				delete(m, name)
				return present
			}
			cur = m[name]
			continue
		}
		l, ok := m[name].([]any)
		if !ok || index < 0 || index >= len(l) {
			return false
		}
		if last {
			m[name] = append(append([]any{}, l[:index]...), l[index+1:]...)
			return true
		}
		cur = l[index]
	}
	return false
}

func splitIndex(step string) (string, int, bool) {
	open := strings.IndexByte(step, '[')
	if open < 0 || !strings.HasSuffix(step, "]") {
		return step, 0, false
	}
	n, err := strconv.Atoi(step[open+1 : len(step)-1])
	if err != nil {
		return step, 0, false
	}
	return step[:open], n, true
}
