package render

import (
	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// operandRequest is a decoded OperandRequest and what it asks for.
type operandRequest struct {
	obj   *manifest.Object
	key   key
	wants []*want
	// failed is set when ODLM would render no operands for this request: a missing
	// registry or operand, or a Subscription that cannot be created (docs/semantics.md, Subscriptions: when one is created).
	failed bool
}

// want is one operand of one request block, resolved against its registry.
type want struct {
	request  *operandRequest
	block    int
	index    int // index of the operand inside its block (used by hashed CR names)
	operand  api.Operand
	entry    *entry
	registry *registry
	// channel is the channel resolved for this request (registry channel, or the
	// fallback the catalog offers); "" when it could not be resolved
	channel string
	// inScope is false for a private operator requested from another namespace
	inScope bool
	// plan is the Subscription (or no-OLM tracker) this want reconciles, if any
	plan *subscriptionPlan
}

func (w *want) field(sub string) string {
	f := manifest.Field("spec.requests", w.block, "operands", w.index)
	if sub != "" {
		f += "." + sub
	}
	return f
}

func (in *roundInputs) loadRequests() {
	for _, o := range in.odlmInputs(api.KindOperandRequest) {
		var decoded api.OperandRequestSpec
		if !in.r.decodeSpec(o, &decoded) {
			continue
		}
		req := &operandRequest{obj: o, key: key{o.Namespace(), o.Name()}}
		in.requests = append(in.requests, req)
		spec, _ := o.Map["spec"].(map[string]any)
		if _, present := spec["requests"]; !present {
			in.add(diag.Errorf(o, "spec.requests", "is required"))
			req.failed = true
			continue
		}
		if len(decoded.Requests) == 0 && !in.r.lookups.fedFromCarried(o) {
			in.noteEmptyRequest(o)
		}
		for bi, block := range decoded.Requests {
			in.loadBlock(req, bi, block)
		}
	}
}

// noteEmptyRequest says that an input OperandRequest without requests (requests: [], a
// marker object some Cloud Paks create) makes ODLM create nothing, and, when the render
// consumes it, that it leaves the output: whatever in the cluster looks for it then finds
// nothing. (One the render emits stays in the output anyway.)
func (in *roundInputs) noteEmptyRequest(o *manifest.Object) {
	if !in.consumed[o] {
		in.add(diag.Infof(o, "spec.requests", "is empty: ODLM creates nothing for this OperandRequest; it stays in the output"))
		return
	}
	in.add(diag.Infof(o, "spec.requests", "is empty: ODLM creates nothing for this OperandRequest, and the render leaves it out of the output like every ODLM input it reads; give --keep-inputs when something in the cluster reads OperandRequests (an empty one used as a marker, operators that wait for a request's status)"))
}

func (in *roundInputs) loadBlock(req *operandRequest, bi int, block api.Request) {
	o := req.obj
	blockField := manifest.Field("spec.requests", bi)
	if block.Registry == "" {
		in.add(diag.Errorf(o, blockField+".registry", "is required"))
		req.failed = true
		return
	}
	regNs := block.RegistryNamespace
	if regNs == "" {
		regNs = req.key.Namespace
	}
	reg, present := in.registryAt(key{regNs, block.Registry})
	if !present {
		in.add(diag.Errorf(o, blockField+".registry", "OperandRegistry %s/%s not found %s%s; ODLM renders no operands for this request%s", regNs, block.Registry, in.lookedIn(), suggest.DidYouMean(block.Registry, in.registryNames(regNs)), in.registryHint(block.Registry, regNs)))
	}
	if reg == nil {
		req.failed = true
		return
	}
	// the config is read now (from the cluster, when no input holds it), so that what the
	// render installs is known before the operands (installTargets)
	in.configAt(reg.key)
	for oi, op := range block.Operands {
		w := &want{request: req, block: bi, index: oi, operand: op, registry: reg}
		if op.Name == "" {
			in.add(diag.Errorf(o, w.field("name"), "is required"))
			req.failed = true
			continue
		}
		e, ok := reg.byName[op.Name]
		if !ok {
			in.add(diag.Errorf(o, w.field("name"), "operator %q is not in OperandRegistry %s%s%s", op.Name, reg.key, in.r.lookups.fromCluster(reg.obj), suggest.DidYouMean(op.Name, reg.names())))
			req.failed = true
			continue
		}
		w.entry = e
		w.inScope = e.Scope != api.ScopePrivate || req.key.Namespace == reg.key.Namespace
		if !w.inScope {
			in.add(diag.Warnf(o, w.field("name"), "operator %q is private to namespace %s: ODLM creates no Subscription for a request from namespace %s", e.Name, reg.key.Namespace, req.key.Namespace))
		}
		in.checkOperand(w)
		req.wants = append(req.wants, w)
	}
}

// checkOperand rejects the operand shapes that crash ODLM (docs/semantics.md, Decided deviations: crashes are errors).
func (in *roundInputs) checkOperand(w *want) {
	o := w.request.obj
	op := w.operand
	if op.Kind == "" {
		for _, f := range []struct{ name, value string }{{"apiVersion", op.APIVersion}, {"instanceName", op.InstanceName}} {
			if f.value != "" {
				in.add(diag.Warnf(o, w.field(f.name), "has no effect without kind"))
			}
		}
		if op.Spec.Present {
			in.add(diag.Warnf(o, w.field("spec"), "has no effect without kind: the operand's CRs come from the OperandConfig"))
		}
		return
	}
	if w.entry.UserManaged {
		in.add(diag.Errorf(o, w.field("kind"), "operator %q is userManaged: ODLM cannot create CRs from a request for it (the controller crashes on this input)", w.entry.Name))
		w.request.failed = true
		return
	}
	if op.APIVersion == "" {
		in.add(diag.Errorf(o, w.field("apiVersion"), "is required when kind is set"))
		w.request.failed = true
	}
	if op.Spec.IsNull() {
		in.add(diag.Errorf(o, w.field("spec"), "kind is set but spec is missing (the controller crashes on this input); write spec: {} for an empty spec"))
		w.request.failed = true
		return
	}
	if _, ok := op.Spec.Value.(map[string]any); !ok {
		in.add(diag.Errorf(o, w.field("spec"), "must be a mapping"))
		w.request.failed = true
	}
}

// allWants returns every want in render order: request namespace, request name, block,
// operand index.
func (in *roundInputs) allWants() []*want {
	var out []*want
	for _, req := range in.requests {
		out = append(out, req.wants...)
	}
	return out
}

// registryNames lists the registries of a namespace, for suggestions.
func (in *roundInputs) registryNames(namespace string) []string {
	var out []string
	for _, k := range sortedKeys(in.registries) {
		if k.Namespace == namespace {
			out = append(out, k.Name)
		}
	}
	return out
}
