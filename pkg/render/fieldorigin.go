package render

import (
	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// Where a field of an operand CR comes from. A CR an OperandConfig service configures is
// its bundle's alm-example with the service's fragment merged over it (docs/semantics.md, Operand custom resources), and the
// fragment is often empty (`navconfiguration: {}` in IBM's configurations): a field the CRD
// prunes or refuses is then the alm-example's, and pointing at the OperandConfig line would
// send the user to a file that does not hold it and cannot remove it. Results about such a
// field name the alm-example (bundle, kind, field) and the CR instead.

// almExample is the alm-example a CR was made from and the fragment merged over it.
type almExample struct {
	bundle, kind string
	fragment     any
}

// fromExample reports whether a field of the CR (a path as the CRD checks print it) comes
// from the alm-example: everything outside spec, and what under spec the fragment does not
// hold (an empty map in the fragment holds none of the example's keys below it).
func (a schemaAnchor) fromExample(path string) bool {
	if a.example == nil {
		return false
	}
	steps := manifest.SplitPath(path)
	if len(steps) == 0 || steps[0].IsIndex || steps[0].Key != "spec" {
		return true
	}
	v := a.example.fragment
	for _, s := range steps[1:] {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[s.Key]
			if s.IsIndex || !ok {
				return true
			}
			v = next
		case []any:
			if !s.IsIndex || s.Index >= len(x) {
				return true
			}
			v = x[s.Index]
		default:
			return true
		}
	}
	return false
}

// prunedResult is the warning about a field the CRD does not know (the API server drops it).
func (a schemaAnchor) prunedResult(o *manifest.Object, def *crd.Definition, where, path string) diag.Result {
	hint := suggest.DidYouMean(lastField(path), def.FieldsAt(o.APIVersion(), path))
	if a.fromExample(path) {
		return diag.Warnf(o, path, "comes from the alm-example of kind %s in bundle %s, and CRD %s (%s) has no such field: the API server drops it, so it is left out%s",
			a.example.kind, a.example.bundle, def.Name, where, hint)
	}
	return diag.Warnf(a.about, a.at(path), "%s: field %s is not in CRD %s (%s): the API server drops it, so it is left out%s",
		o.Ref(), path, def.Name, where, hint)
}

// refusedResult is the error about a value the CRD refuses.
func (a schemaAnchor) refusedResult(o *manifest.Object, def *crd.Definition, where string, p crd.Problem) diag.Result {
	if a.fromExample(p.Field) {
		return diag.Errorf(o, p.Field, "comes from the alm-example of kind %s in bundle %s: %s (CRD %s, %s): the API server refuses it",
			a.example.kind, a.example.bundle, p.Reason, def.Name, where)
	}
	return diag.Errorf(a.about, a.at(p.Field), "%s: %s: %s (CRD %s, %s): the API server refuses it", o.Ref(), p.Field, p.Reason, def.Name, where)
}
