package fbc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Blobs are generic trees (map[string]any, []any, scalars) so that the same
// code reads blobs decoded from our files and blobs handed to
// Builder.AddBlob by callers that decoded them with another library. These
// helpers read them without ever panicking on an unexpected type.

// asMap accepts both map shapes YAML libraries produce.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			ks, ok := k.(string)
			if !ok {
				ks = fmt.Sprint(k)
			}
			out[ks] = val
		}
		return out, true
	}
	return nil, false
}

// toString accepts strings and exact numbers (json.Number keeps the text, so
// "version: 1.0" stays "1.0"); anything else is a type error.
func toString(v any, what string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return string(x), nil
	}
	return "", fmt.Errorf("%s: expected a string, got %s", what, manifest.Describe(v))
}

// scalarString is laxer than toString, for Kubernetes annotations: a
// hand-written or re-encoded catalog may carry an unquoted true or 1.
func scalarString(v any, what string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return string(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", nil
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return fmt.Sprint(x), nil
	}
	if s, ok := v.(fmt.Stringer); ok { // e.g. time.Time from a YAML library
		return s.String(), nil
	}
	return "", fmt.Errorf("%s: expected a string, got %s", what, manifest.Describe(v))
}

func optString(m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	return toString(v, "field "+strconv.Quote(key))
}

func reqString(m map[string]any, key string) (string, error) {
	s, err := optString(m, key)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", fmt.Errorf("field %q is missing or empty", key)
	}
	return s, nil
}

func optMap(m map[string]any, key string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	mm, ok := asMap(v)
	if !ok {
		return nil, fmt.Errorf("field %q: expected a mapping, got %s", key, manifest.Describe(v))
	}
	return mm, nil
}

func optList(m map[string]any, key string) ([]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("field %q: expected a list, got %s", key, manifest.Describe(v))
	}
	return l, nil
}

// listOfMaps reads a list whose elements must be objects.
func listOfMaps(m map[string]any, key string) ([]map[string]any, error) {
	l, err := optList(m, key)
	if err != nil || l == nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(l))
	for i, v := range l {
		mm, ok := asMap(v)
		if !ok {
			return nil, fmt.Errorf("field %q element %d: expected a mapping, got %s", key, i, manifest.Describe(v))
		}
		out = append(out, mm)
	}
	return out, nil
}
