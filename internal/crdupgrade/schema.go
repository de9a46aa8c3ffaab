package crdupgrade

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/crdify/pkg/validations"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// schemaOf is the OpenAPI schema of a version of a CRD, nil when the CRD has no such version
// or the version no schema.
func schemaOf(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.JSONSchemaProps {
	v := validations.GetCRDVersionByName(crd, name)
	if v == nil || v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}

// field is one field of a schema: its schema and its parent's path.
type field struct {
	*apiextensionsv1.JSONSchemaProps
	parent string
}

// fieldsOf are a schema's fields by JSON path ("" is the root, spec.excludeRef[*].kind an
// array's item's field, spec.matchLabels.* a map's values), through properties, items and
// additionalProperties.
func fieldsOf(s *apiextensionsv1.JSONSchemaProps) map[string]*field {
	out := map[string]*field{}
	if s != nil {
		walk(s, "", "", out)
	}
	return out
}

func walk(s *apiextensionsv1.JSONSchemaProps, path, parent string, out map[string]*field) {
	out[path] = &field{JSONSchemaProps: s, parent: parent}
	for _, name := range manifest.SortedKeys(s.Properties) {
		child := s.Properties[name]
		walk(&child, childPath(path, name), path, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walk(s.Items.Schema, path+"[*]", path, out)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walk(s.AdditionalProperties.Schema, childPath(path, "*"), path, out)
	}
}

// childPath is the path of a field of the object at path.
func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonPath turns crdify's name of a property (^.spec.excludeRef.items.kind) into its JSON path
// in schema s (spec.excludeRef[*].kind): a property's name wins over items and
// additionalProperties, and names with dots are matched whole. What it cannot follow (allOf,
// oneOf…) is kept as crdify wrote it.
func jsonPath(s *apiextensionsv1.JSONSchemaProps, key string) string {
	rest, ok := strings.CutPrefix(key, "^")
	if !ok {
		return key
	}
	tokens := strings.Split(strings.TrimPrefix(rest, "."), ".")
	if rest == "" {
		tokens = nil
	}
	path := ""
	for i := 0; i < len(tokens); {
		next, step := follow(s, tokens[i:])
		if next == nil {
			return childPath(path, strings.Join(tokens[i:], "."))
		}
		path = joinStep(path, tokens[i:i+step], s)
		s, i = next, i+step
	}
	return path
}

// follow finds the schema the first tokens name in s and how many tokens it took.
func follow(s *apiextensionsv1.JSONSchemaProps, tokens []string) (*apiextensionsv1.JSONSchemaProps, int) {
	if s == nil {
		return nil, 0
	}
	for n := len(tokens); n > 0; n-- {
		if child, ok := s.Properties[strings.Join(tokens[:n], ".")]; ok {
			return &child, n
		}
	}
	switch {
	case tokens[0] == "items" && s.Items != nil && s.Items.Schema != nil:
		return s.Items.Schema, 1
	case tokens[0] == "additionalProperties" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return s.AdditionalProperties.Schema, 1
	}
	return nil, 0
}

// joinStep adds the step follow took from s to path.
func joinStep(path string, tokens []string, s *apiextensionsv1.JSONSchemaProps) string {
	name := strings.Join(tokens, ".")
	if _, ok := s.Properties[name]; ok {
		return childPath(path, name)
	}
	if name == "items" {
		return path + "[*]"
	}
	return childPath(path, "*")
}

// changedKeywords are the JSON keywords that differ between two schemas, their children
// (properties, items) aside, sorted.
func changedKeywords(a, b *field) []string {
	am, bm := keywords(a), keywords(b)
	var out []string
	for _, k := range sortedSet(slices.Concat(manifest.SortedKeys(am), manifest.SortedKeys(bm))) {
		if !reflect.DeepEqual(am[k], bm[k]) {
			out = append(out, k)
		}
	}
	return out
}

// keywords is a schema without its children as JSON keywords and values.
func keywords(f *field) map[string]any {
	if f == nil {
		return nil
	}
	raw, err := json.Marshal(validations.DropChildrenPropertiesFromJSONSchema(f.JSONSchemaProps))
	if err != nil {
		return nil
	}
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

func sortedSet(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
