package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	yaml "go.yaml.in/yaml/v3"
)

// Source says where an object was read from. The zero value means "generated".
type Source struct {
	// File is the path as the user gave it (slash separated), or "-" for stdin.
	File string
	// Index is the position of the document in its file, from 0.
	Index int
	// Line is the 1-based line where the document starts, 0 when unknown.
	Line int
	// doc is the document's text, parsed again when a field's line is asked for: keeping
	// every document's nodes would cost several times the input's size.
	doc *docText
	// item is, for an item of a List document, its index + 1.
	item int
}

// docText is a document's place in its file: the file's bytes (shared by its documents) and
// where the document's root starts.
type docText struct {
	data   []byte
	offset int // of the first byte of the root's line
	line   int // the root's line
	once   sync.Once
	root   *yaml.Node
}

// node parses the document again (once), from its root's line; nil when that fails.
func (d *docText) node() *yaml.Node {
	d.once.Do(func() {
		var doc yaml.Node
		if err := yaml.NewDecoder(bytes.NewReader(d.data[d.offset:])).Decode(&doc); err == nil && len(doc.Content) > 0 {
			d.root = doc.Content[0]
		}
	})
	return d.root
}

// LineOf returns the line of the field at path (dotted keys, [i] for list elements) in the
// object's source, falling back to the deepest parent found and then to the document line.
func (s Source) LineOf(path string) int {
	if s.doc == nil || path == "" {
		return s.Line
	}
	n := s.doc.node()
	if n != nil && s.item > 0 {
		n = childNode(n, PathStep{Key: "items"})
		if n != nil {
			n = childNode(n, PathStep{IsIndex: true, Index: s.item - 1})
		}
	}
	if n == nil {
		return s.Line
	}
	shift := s.doc.line - 1 // the parse started at the root's line
	line := s.Line
	for _, step := range SplitPath(path) {
		next := childNode(n, step)
		if next == nil {
			break
		}
		n = next
		line = n.Line + shift
	}
	return line
}

func childNode(n *yaml.Node, step PathStep) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case step.IsIndex && n.Kind == yaml.SequenceNode:
		if step.Index >= 0 && step.Index < len(n.Content) {
			return n.Content[step.Index]
		}
	case !step.IsIndex && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step.Key {
				// point at the key: that is the line a user looks for
				v := n.Content[i+1]
				if v.Kind == yaml.ScalarNode || v.Kind == yaml.AliasNode {
					return v
				}
				cp := *v
				cp.Line = n.Content[i].Line
				return &cp
			}
		}
	}
	return nil
}

// Object is one Kubernetes object (or any YAML mapping document) and its source.
type Object struct {
	Map    map[string]any
	Source Source
}

// New wraps a value map as a generated object.
func New(m map[string]any) *Object { return &Object{Map: m} }

// APIVersion returns the apiVersion field ("" when absent or not a string).
func (o *Object) APIVersion() string { return o.String("apiVersion") }

// Kind returns the kind field.
func (o *Object) Kind() string { return o.String("kind") }

// Name returns metadata.name.
func (o *Object) Name() string { return o.String("metadata", "name") }

// Namespace returns metadata.namespace.
func (o *Object) Namespace() string { return o.String("metadata", "namespace") }

// Group returns the API group of apiVersion ("" for the core group).
func (o *Object) Group() string {
	g, _, found := strings.Cut(o.APIVersion(), "/")
	if !found {
		return ""
	}
	return g
}

// String returns the string at the path of map keys, or "".
func (o *Object) String(path ...string) string {
	s, _ := Get(o.Map, path...).(string)
	return s
}

// Labels returns metadata.labels as strings (non-string values are skipped).
func (o *Object) Labels() map[string]string { return o.stringMap("labels") }

// Annotations returns metadata.annotations as strings.
func (o *Object) Annotations() map[string]string { return o.stringMap("annotations") }

func (o *Object) stringMap(field string) map[string]string {
	m, _ := Get(o.Map, "metadata", field).(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// SetMetadataString sets metadata.<field>.<key> = value, creating maps as needed.
func (o *Object) SetMetadataString(field, key, value string) {
	md := EnsureMap(o.Map, "metadata")
	m := EnsureMap(md, field)
	m[key] = value
}

// Ref returns the object's identity.
func (o *Object) Ref() Ref {
	return Ref{APIVersion: o.APIVersion(), Kind: o.Kind(), Namespace: o.Namespace(), Name: o.Name()}
}

// Ref identifies an object.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// String is "Kind ns/name" (or "Kind name" for cluster-scoped objects). A name or namespace
// with spaces or control characters is quoted, so that a message stays one line that says
// what the name is.
func (r Ref) String() string {
	id := r.Name
	if r.Namespace != "" {
		id = r.Namespace + "/" + r.Name
	}
	if strings.IndexFunc(id, func(c rune) bool { return unicode.IsSpace(c) || !unicode.IsPrint(c) }) >= 0 {
		id = strconv.Quote(id)
	}
	return r.Kind + " " + id
}

// Key identifies an object by group, kind, namespace and name: the version is left out, as
// two versions of one kind are the same object to an API server. It is comparable (a map
// key) and orders as its fields do, in that order.
type Key struct {
	Group, Kind, Namespace, Name string
}

// Key is the object's Key.
func (r Ref) Key() Key {
	g, _, found := strings.Cut(r.APIVersion, "/")
	if !found {
		g = ""
	}
	return Key{Group: g, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// GroupKind is the key's group and kind.
func (k Key) GroupKind() GroupKind { return GroupKind{Group: k.Group, Kind: k.Kind} }

// Compare orders keys by group, kind, namespace, then name.
func (k Key) Compare(o Key) int {
	if c := strings.Compare(k.Group, o.Group); c != 0 {
		return c
	}
	if c := strings.Compare(k.Kind, o.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	return strings.Compare(k.Name, o.Name)
}

// GroupKind names a kind in an API group (the core group is "").
type GroupKind struct {
	Group, Kind string
}

// GroupKindOf is the group and kind of an object.
func GroupKindOf(o *Object) GroupKind { return GroupKind{Group: o.Group(), Kind: o.Kind()} }

// Get walks map keys and returns the value found, or nil.
func Get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// EnsureMap returns m[key] as a map, replacing a missing or non-map value with a new map.
func EnsureMap(m map[string]any, key string) map[string]any {
	if sub, ok := m[key].(map[string]any); ok {
		return sub
	}
	sub := map[string]any{}
	m[key] = sub
	return sub
}

// SortedKeys returns the keys of m in byte order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Describe names the kind of a value of a value tree for messages, with its article: "a
// mapping", "a list", "a string", "a number", "a boolean", "null" — never a Go type name.
// DescribeType says in words what a Go type holds ("a string", "a list"), for messages about
// a value of the wrong type: never a Go type name.
func DescribeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return DescribeType(t.Elem())
	}
	return "a value of another type"
}

func Describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return "a number"
	case map[string]any, map[any]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return "an unsupported value"
}
