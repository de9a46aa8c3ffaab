package platform

import (
	"slices"
	"strconv"
	"strings"
)

// Required fields of built-in kinds. The API server refuses a built-in object that lacks a
// field its API requires (a Job container whose image a template removed, a RoleBinding
// without roleRef), and ODLM, which creates OperandConfig resources as they are, retries it
// forever. What a library can tell about that is what the API server publishes: its OpenAPI
// document marks the fields each type requires. requiredTypes (required_table.go) is that
// mark for every type the built-in kinds reach, generated from the document of
// k8s.io/kubernetes at requiredSource (TestRequiredTableIsTheAPIServers); the published
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
var validationRequired = map[string][]string{
	"io.k8s.api.core.v1.Container": {"image"},
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

// MissingRequired returns the required fields a built-in object lacks (absent or null), in
// field order; nil for kinds the document does not describe. Its status is not looked at
// (the API server drops a status sent on create).
func MissingRequired(apiVersion, kind string, obj map[string]any) []Missing {
	root, ok := requiredRoots[apiVersion+"|"+kind]
	if !ok {
		return nil
	}
	var out []Missing
	walkRequired(root, obj, "", true, &out)
	return out
}

func walkRequired(typ string, v any, path string, top bool, out *[]Missing) {
	m, ok := v.(map[string]any)
	if !ok {
		return // a wrong type is not this check's: the server's decoding refuses it
	}
	t := requiredTypes[typ]
	for _, f := range t.required {
		if m[f] == nil {
			*out = append(*out, Missing{Path: join(path, f)})
		}
	}
	for _, f := range validationRequired[typ] {
		if m[f] == nil && !slices.Contains(t.required, f) {
			*out = append(*out, Missing{Path: join(path, f), Validation: true})
		}
	}
	for _, e := range t.edges {
		if top && e.field == "status" {
			continue
		}
		child, ok := m[e.field]
		if !ok || child == nil {
			continue
		}
		p := join(path, e.field)
		switch e.shape {
		case shapeOne:
			walkRequired(e.typ, child, p, false, out)
		case shapeList:
			l, _ := child.([]any)
			for i, x := range l {
				walkRequired(e.typ, x, p+"["+strconv.Itoa(i)+"]", false, out)
			}
		case shapeMap:
			cm, _ := child.(map[string]any)
			keys := make([]string, 0, len(cm))
			for k := range cm {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walkRequired(e.typ, cm[k], p+"["+strconv.Quote(k)+"]", false, out)
			}
		}
	}
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}
