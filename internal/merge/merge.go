package merge

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Merge returns changed with the values of def filled in, as ODLM's
// MergeCR(default, changed) does. Both arguments stand for ODLM's byte
// inputs: a Go nil (or nil map) means empty bytes, otherwise the value
// must be a map[string]any (a JSON object). A JSON null default behaves
// like an empty one, so pass nil for it. For a changed value that is an
// explicit JSON null use MergeNullChanged.
//
//   - both nil: an empty map; only def: a copy of def (null-valued keys
//     included); only changed: a copy of changed.
//   - otherwise, for every key of def, recursively: a map or list default
//     replaces a null/absent changed value, merges into a value of the
//     same type (maps key by key; lists position by position, only for
//     default elements that are maps, extra default elements dropped) and
//     loses to a value of another type; a scalar default only replaces a
//     null/absent value. Keys only in changed are kept.
//
// A default map element merged into a null or non-map list element (ODLM
// panics there) yields an *Error naming the element. The result is always
// a fresh map[string]any; the inputs are not modified.
func Merge(def, changed any) (any, error) {
	d, err := object("default", def)
	if err != nil {
		return nil, err
	}
	if isNull(changed) {
		if d == nil {
			return map[string]any{}, nil
		}
		return DeepCopy(d), nil
	}
	c, err := object("changed", changed)
	if err != nil {
		return nil, err
	}
	out := DeepCopy(c).(map[string]any)
	if err := mergeKeys(d, out, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// MergeNullChanged is Merge for a changed value given as the JSON text
// null. ODLM then merges into a nil map and panics as soon as one default
// key holds a non-null value: this returns an *Error for that key. When
// every default key is null (or def is empty), ODLM returns a nil map;
// this returns an empty map, as Merge does for two empty inputs.
func MergeNullChanged(def any) (any, error) {
	d, err := object("default", def)
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(d) {
		if !isNull(d[k]) {
			return nil, &Error{Path: k, Msg: "cannot merge a default value into a null object"}
		}
	}
	return map[string]any{}, nil
}

// object checks that a top-level argument is nil or a JSON object.
func object(role string, v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Msg: fmt.Sprintf("the %s value must be a mapping, not %s", role, manifest.Describe(v))}
	}
	return m, nil
}

// mergeKeys fills the keys of def into out, which it modifies in place.
func mergeKeys(def, out map[string]any, path string) error {
	for _, k := range sortedKeys(def) {
		if err := mergeKey(def[k], out, k, joinKey(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// mergeKey merges the default value d into out[k].
func mergeKey(d any, out map[string]any, k, path string) error {
	c := out[k]
	if isNull(d) || Equal(d, c) {
		return nil
	}
	if isNull(c) {
		out[k] = DeepCopy(d)
		return nil
	}
	switch dv := d.(type) {
	case map[string]any:
		if cv, ok := c.(map[string]any); ok {
			return mergeKeys(dv, cv, path)
		}
	case []any:
		if cv, ok := c.([]any); ok {
			return mergeList(dv, cv, path)
		}
	}
	return nil
}

// mergeList merges the map elements of def into the elements of out at
// the same positions; out is modified in place.
func mergeList(def, out []any, path string) error {
	for j := 0; j < len(def) && j < len(out); j++ {
		dm, ok := def[j].(map[string]any)
		if !ok || len(dm) == 0 {
			continue
		}
		elemPath := path + "[" + strconv.Itoa(j) + "]"
		cm, ok := out[j].(map[string]any)
		if !ok || cm == nil {
			return &Error{Path: elemPath, Msg: fmt.Sprintf(
				"cannot merge a mapping from the alm-example into %s", manifest.Describe(out[j]))}
		}
		if err := mergeKeys(dm, cm, elemPath); err != nil {
			return err
		}
	}
	return nil
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
