package collection

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// objects renders the CRDs of the resources and the ClusterRole and Role.
func (cfg *Config) objects(opts Options) []*manifest.Object {
	var out []*manifest.Object
	if cfg.Group == "" || cfg.APIVersion == "" {
		return nil
	}
	for _, r := range cfg.Resources {
		if r.Kind == "" {
			continue
		}
		out = append(out, manifest.New(cfg.crd(r)))
	}
	if len(cfg.ClusterRoleRules) > 0 {
		out = append(out, manifest.New(map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "ClusterRole",
			"metadata":   map[string]any{"name": cfg.Group},
			"rules":      cfg.ClusterRoleRules,
		}))
	}
	if len(cfg.RoleRules) > 0 {
		md := map[string]any{"name": cfg.Group}
		if opts.Namespace != "" {
			md["namespace"] = opts.Namespace
		}
		out = append(out, manifest.New(map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "Role",
			"metadata":   md,
			"rules":      cfg.RoleRules,
		}))
	}
	return out
}

// crd is the CustomResourceDefinition of one resource: namespaced, one version (served
// and stored) named after the collection's version, a status subresource for the
// playbook's k8s_status, and the schema resourceSchema gives.
func (cfg *Config) crd(r Resource) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": r.Plural + "." + cfg.Group},
		"spec": map[string]any{
			"group": cfg.Group,
			"names": map[string]any{
				"kind":     r.Kind,
				"listKind": r.Kind + "List",
				"plural":   r.Plural,
				"singular": r.Singular,
			},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name":         cfg.APIVersion,
				"served":       true,
				"storage":      true,
				"schema":       map[string]any{"openAPIV3Schema": cfg.resourceSchema(r)},
				"subresources": map[string]any{"status": map[string]any{}},
			}},
		},
	}
}

// resourceSchema is the openAPIV3Schema of one resource: its title and description (its
// own, or its kind and a sentence naming its playbook), a spec of its vars (specSchema),
// required when a var is, and a status the playbook writes freely.
func (cfg *Config) resourceSchema(r Resource) map[string]any {
	spec, specRequired := specSchema(r)
	desc := r.Description
	if desc == "" {
		desc = fmt.Sprintf("%s runs playbook %s of %s.", r.Kind, r.Playbook, cfg.Group)
	}
	schema := map[string]any{
		"type":        "object",
		"title":       cmp.Or(r.DisplayName, r.Kind),
		"description": desc,
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"kind":       map[string]any{"type": "string"},
			"metadata":   map[string]any{"type": "object"},
			"spec":       spec,
			"status":     map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
		},
	}
	if specRequired {
		schema["required"] = []any{"spec"}
	}
	return schema
}

// specSchema is the schema of a resource's spec: one property per var (varSchema), the
// required vars, or, when none is but one has a default, an empty default so that the API
// server fills in the defaults of a resource created without a spec. required tells whether
// any var is required.
func specSchema(r Resource) (spec map[string]any, required bool) {
	props := map[string]any{}
	var names []any
	hasDefault := false
	for _, v := range r.Vars {
		if v.Name == "" || v.Type == "" {
			continue
		}
		props[v.Name] = varSchema(v)
		if v.Required {
			names = append(names, v.Name)
		}
		hasDefault = hasDefault || v.Default != nil
	}
	spec = map[string]any{"type": "object", "description": fmt.Sprintf("The variables passed to playbook %s.", r.Playbook)}
	if len(props) > 0 {
		spec["properties"] = props
	}
	switch {
	case len(names) > 0:
		spec["required"] = names
	case hasDefault:
		spec["default"] = map[string]any{}
	}
	return spec, len(names) > 0
}

// varSchema is the OpenAPI schema of one var: its type (a password is the name of a
// Secret), title, description, enum from options and default.
func varSchema(v Var) map[string]any {
	s := map[string]any{}
	var desc []string
	if v.Description != "" {
		desc = append(desc, v.Description)
	}
	switch v.Type {
	case TypeString:
		s["type"] = "string"
	case TypePassword:
		s["type"] = "string"
		s["maxLength"] = json.Number("253")
		s["pattern"] = secretNamePattern
		desc = append(desc, "The name of a Secret in the same namespace: the playbook reads the private data from it.")
	case TypeNumber:
		s["type"] = "number"
	case TypeInteger:
		s["type"] = "integer"
	case TypeBoolean:
		s["type"] = "boolean"
	}
	if v.Required && (v.Type == TypeString || v.Type == TypePassword) && len(v.Options) == 0 {
		s["minLength"] = json.Number("1")
	}
	if v.KindReference != "" {
		desc = append(desc, fmt.Sprintf("The name of a %s in the same namespace.", v.KindReference))
	}
	if v.DisplayName != "" {
		s["title"] = v.DisplayName
	}
	if len(desc) > 0 {
		s["description"] = strings.Join(desc, " ")
	}
	if len(v.Options) > 0 {
		enum := make([]any, len(v.Options))
		for i, o := range v.Options {
			enum[i] = o
		}
		s["enum"] = enum
	}
	if v.Default != nil {
		s["default"] = v.Default
	}
	return s
}
