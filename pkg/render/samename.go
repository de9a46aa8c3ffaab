package render

import (
	"fmt"
	"slices"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Same-name operand CRs from two places. An OperandRequest operand with a kind (docs/semantics.md, Operand custom resources) names
// its CR itself (instanceName, or a hash), and an OperandConfig makes CRs from the
// alm-examples and its resources (docs/semantics.md, Operand custom resources; OperandConfig resources). When both give the same kind, namespace
// and name, ODLM updates one object from both paths: the request path merges the request's
// spec over it, the config path merges the OperandConfig's over it, and its spec flips
// between the two on every reconcile. No steady state exists to render, so the render keeps
// the OperandConfig's object, whatever order it meets the two in, leaves the request-level
// CR out (with nothing said about it: it is not in the output), and warns once naming both
// places and the one kept.

// placeOf says where an operand CR rendered in this pass comes from: "OperandConfig
// cs/common-service spec.services[0].spec.SleepInfo" (object and field, not a file: the
// same inputs split across files give the same message).
func (ops *operandsStep) placeOf(a schemaAnchor) string {
	return fmt.Sprintf("%s %s/%s %s", a.about.Kind(), a.about.Namespace(), a.about.Name(), a.field)
}

// renderedFrom returns the object this pass rendered under ref and where it comes from,
// when kind (OperandRequest or OperandConfig) made it.
func (ops *operandsStep) renderedFrom(ref manifest.Ref, kind string) (*manifest.Object, schemaAnchor, bool) {
	o, ok := ops.r.pass.rendered[ref.Key()]
	if !ok {
		return nil, schemaAnchor{}, false
	}
	a, ok := ops.r.facts.anchorOf(o)
	if !ok || a.about == nil || a.about.Kind() != kind || a.about.Group() != api.Group {
		return nil, schemaAnchor{}, false
	}
	return o, a, true
}

// requestCRShadowed reports a request-level CR whose name an OperandConfig CR of this pass
// already has: the OperandConfig's is kept.
func (ops *operandsStep) requestCRShadowed(ref manifest.Ref, req schemaAnchor) bool {
	_, cfg, ok := ops.renderedFrom(ref, api.KindOperandConfig)
	if !ok {
		return false
	}
	ops.warnSameName(ref, req, cfg)
	return true
}

// replaceRequestCR removes the request-level CR this pass rendered under ref, if any, so that
// the OperandConfig's object (cfg says where it comes from) takes its place.
func (ops *operandsStep) replaceRequestCR(ref manifest.Ref, cfg schemaAnchor) {
	o, req, ok := ops.renderedFrom(ref, api.KindOperandRequest)
	if !ok {
		return
	}
	ops.warnSameName(ref, req, cfg)
	delete(ops.r.pass.rendered, ref.Key())
	ops.r.facts.forget(o)
	ops.r.pass.renderedList = slices.DeleteFunc(ops.r.pass.renderedList, func(x *manifest.Object) bool { return x == o })
}

// warnSameName is the one result about a collision, at the request's operand (the CR left
// out), naming the OperandConfig's place too.
func (ops *operandsStep) warnSameName(ref manifest.Ref, req, cfg schemaAnchor) {
	ops.r.add(diag.Warnf(req.about, req.field, "%s is also rendered from %s: ODLM updates the object from both, and its spec flips between the two on every reconcile; the render keeps the OperandConfig's and leaves this operand's CR out (give the operand another instanceName, or configure the CR in one place)",
		ref, ops.placeOf(cfg)))
}
