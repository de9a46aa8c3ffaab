package render

import (
	"fmt"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/platform"
)

// Built-in objects the API server refuses. A CRD tells the render everything about a custom
// resource (schemas.go); for built-in kinds what a library can tell is the API server's
// published OpenAPI document, which marks required fields, plus the few fields only its
// validation requires that real configurations miss (internal/platform). A template whose
// value is empty removes its key (docs/semantics.md, Templating: result), so a Job whose image comes from an unset value
// reaches the API server without one: ODLM creates it as it is and the server refuses it.
// The render emits it too (it is what ODLM sends) and warns, naming the object and field.

// checkBuiltinRequired warns about each required field a built-in object lacks.
func (sk *servedIndex) checkBuiltinRequired(o *manifest.Object, a schemaAnchor) {
	for _, m := range platform.MissingRequired(o.APIVersion(), o.Kind(), o.Map) {
		why := fmt.Sprintf("the OpenAPI document of Kubernetes %s marks it required", platform.RequiredSource())
		if m.Validation {
			why = "the API server's validation requires it"
		}
		if a.fromExample(m.Path) {
			sk.r.add(diag.Warnf(o, m.Path, "is missing from the alm-example of kind %s in bundle %s, and %s: the API server refuses the object", a.example.kind, a.example.bundle, why))
			continue
		}
		sk.r.add(diag.Warnf(a.about, a.at(m.Path), "%s: %s is missing%s, and %s: the API server refuses the object", o.Ref(), m.Path, emptiedBy(a, m.Path), why))
	}
}

// emptiedBy says why an input field the object lacks is gone: a template that resolved to
// an empty value removes its key (docs/semantics.md, Templating: result).
func emptiedBy(a schemaAnchor, path string) string {
	if a.about == nil {
		return ""
	}
	var v any = a.about.Map
	for _, s := range manifest.SplitPath(a.at(path)) {
		switch x := v.(type) {
		case map[string]any:
			v = x[s.Key]
		case []any:
			if !s.IsIndex || s.Index >= len(x) {
				return ""
			}
			v = x[s.Index]
		default:
			return ""
		}
	}
	if m, ok := v.(map[string]any); ok && m["templatingValueFrom"] != nil {
		return " (its templatingValueFrom resolved to an empty value, which removes the key)"
	}
	return ""
}
