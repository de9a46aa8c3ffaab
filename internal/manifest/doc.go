// Package manifest owns the project's representation of Kubernetes objects: a JSON-like
// value tree (map[string]any, []any, string, bool, nil and json.Number, never float64) plus
// the place each object came from, so that a diagnostic can point at a file and line.
//
// It decodes YAML and JSON streams without losing number precision and encodes objects
// deterministically (sorted keys, stable scalar styles). It knows nothing about ODLM.
package manifest
