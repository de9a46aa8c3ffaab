package platform

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Required fields of built-in kinds. The API server refuses a built-in object that lacks a
// field its API requires (a Job container whose image a template removed, a RoleBinding
// without roleRef), and ODLM, which creates OperandConfig resources as they are, retries it
// forever. What a library can tell about that is what the API server publishes: its OpenAPI
// document marks the fields each type requires. requiredTypes (required_table.go) is that
// mark for every type the built-in kinds reach, generated from the document of
// k8s.io/kubernetes at requiredSource (TestRequiredTableIsTheAPIServers) and built on first
// use (a render that emits no built-in object, or the KRM function's start, never pays for
// its maps); the published
// document does not mark what only the server's validation code requires, and
// validationRequired adds the one field of that kind real configurations trip over, checked
// against a real kube-apiserver (TestRequiredFieldsTheAPIServerRefuses).

// requiredSource is the Kubernetes release whose OpenAPI document the table comes from (the
// release of the k8s.io libraries and of the kube-apiserver the tests run).
const requiredSource = "k8s.io/kubernetes@v1.36.3"

// reqShape says how a field holds its type: one object, a list of them or a map of them.
type reqShape byte

const (
	shapeOne reqShape = iota
	shapeList
	shapeMap
)

// reqEdge is a field of a type whose type requires something, at some depth.
type reqEdge struct {
	field string
	typ   string
	shape reqShape
}

// reqType is what a type requires: its own required fields, and the fields that lead to
// types that require some.
type reqType struct {
	required []string
	edges    []reqEdge
}

// validationRequired are fields the API server's validation requires that its OpenAPI
// document leaves optional (Container.image is optional there so that workload controllers'
// templates may leave it to defaulting tools; the server still refuses a Pod or a pod
// template without it).
func validationRequired() map[string][]string {
	return map[string][]string{
		"io.k8s.api.core.v1.Container": {"image"},
	}
}

// Missing is a required field an object lacks.
type Missing struct {
	// Path is the field's path in the object: spec.template.spec.containers[0].image.
	Path string
	// Validation is set when only the API server's validation requires it (not the OpenAPI
	// document).
	Validation bool
}

// RequiredSource names what the required fields come from, for messages.
func RequiredSource() string { return strings.TrimPrefix(requiredSource, "k8s.io/kubernetes@v") }

// requiredTables are the generated tables (required_table.go), built once, on first use.
var requiredTables = sync.OnceValue(func() requiredTable {
	return requiredTable{roots: requiredRootsTable(), types: requiredTypesTable(), validation: validationRequired()}
})

// requiredTable is what the API server requires: the root type of each built-in kind (by
// apiVersion and kind), what each type requires in the OpenAPI document, and the fields only
// its validation requires, by type.
type requiredTable struct {
	roots      map[string]string
	types      map[string]reqType
	validation map[string][]string
}

// MissingRequired returns the required fields a built-in object lacks (absent or null), in
// field order; nil for kinds the document does not describe. Its status is not looked at
// (the API server drops a status sent on create).
func MissingRequired(apiVersion, kind string, obj map[string]any) []Missing {
	t := requiredTables()
	root, ok := t.roots[apiVersion+"|"+kind]
	if !ok {
		return nil
	}
	w := requiredWalk{table: t}
	w.walk(root, obj, "", true)
	return w.missing
}

// requiredWalk collects the missing fields of one object.
type requiredWalk struct {
	table   requiredTable
	missing []Missing
}

// walk looks at v, a value of type typ at path: its own required fields, then the fields
// that lead to types requiring some (status excepted at the top).
func (w *requiredWalk) walk(typ string, v any, path string, top bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return // a wrong type is not this check's: the server's decoding refuses it
	}
	t := w.table.types[typ]
	for _, f := range t.required {
		if m[f] == nil {
			w.missing = append(w.missing, Missing{Path: join(path, f)})
		}
	}
	for _, f := range w.table.validation[typ] {
		if m[f] == nil && !slices.Contains(t.required, f) {
			w.missing = append(w.missing, Missing{Path: join(path, f), Validation: true})
		}
	}
	for _, e := range t.edges {
		if top && e.field == "status" {
			continue
		}
		if child, ok := m[e.field]; ok && child != nil {
			w.edge(e, child, join(path, e.field))
		}
	}
}

// edge walks the value of a field that holds e.typ: one, a list or a map of them (map
// values in key order).
func (w *requiredWalk) edge(e reqEdge, child any, path string) {
	switch e.shape {
	case shapeOne:
		w.walk(e.typ, child, path, false)
	case shapeList:
		l, _ := child.([]any)
		for i, x := range l {
			w.walk(e.typ, x, path+"["+strconv.Itoa(i)+"]", false)
		}
	case shapeMap:
		cm, _ := child.(map[string]any)
		keys := make([]string, 0, len(cm))
		for k := range cm {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			w.walk(e.typ, cm[k], path+"["+strconv.Quote(k)+"]", false)
		}
	}
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}
