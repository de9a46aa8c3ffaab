package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// operandsStep renders the operands of every request (operands.go, samename.go,
// fieldorigin.go): the CRs of an OperandConfig service from its operator's alm-examples, the
// CRs a request names itself, and the service's resources (resources.go), in passes to a
// fixed point, each pass a new operandPass.
type operandsStep struct{ r *run }

// settle renders, for every request ODLM would reconcile, the operand CRs and the
// OperandConfig resources (docs/semantics.md, Operand custom resources; OperandConfig
// resources). Templates may read objects the render itself produces, in any order, so the
// operand phase runs again with the previous pass's objects visible until its output stops
// changing (ODLM converges the same way, by retrying). Every pass starts from base, the state
// before the operands; the pass the output settled on is returned.
func (ops *operandsStep) settle(base *operandPass) *operandPass {
	ops.r.kinds.noteInstalledBundles()
	ops.r.kinds.providedKinds, ops.r.kinds.installNamespaces = installTargets(ops.r.operators.subscriptions, ops.r.kinds.subscribed, ops.r.inputs.configs)
	last := ""
	// every pass starts from the state the step began with (reads of an earlier pass are
	// superseded by the next pass's, reader.go; results given once are given once per pass)
	for pass := 1; ; pass++ {
		ops.r.pass = base.startPass(ops.r.pass.rendered)
		ops.renderOperandsOnce()
		if !ops.r.pass.readPassOutput() {
			// no read of this pass looked for an object a pass renders: the next pass would
			// read the same answers and render the same objects
			break
		}
		objs := make([]*manifest.Object, 0, len(ops.r.pass.rendered))
		for _, o := range ops.r.pass.rendered {
			objs = append(objs, o)
		}
		fp := renderedFingerprint(objs)
		for _, p := range ops.r.pass.pending {
			fp += "\npending " + p.site.field + p.err.Error()
		}
		if fp == last {
			break
		}
		if pass == maxPasses {
			ops.r.add(diag.Errorf(nil, "", "templatingValueFrom values did not settle after %d passes over the operands: templates that read each other's results do not converge", maxPasses))
			break
		}
		last = fp
	}
	// the API server's checks, on what the passes settled on (schemas.go)
	ops.r.kinds.checkEmitted()
	ops.r.templates.reportPending()
	return ops.r.pass
}

// renderOperandsOnce is one pass over every request's operands.
func (ops *operandsStep) renderOperandsOnce() {
	doneServices := map[string]bool{}
	for _, req := range ops.r.inputs.requests {
		if req.failed {
			if len(req.wants) > 0 {
				ops.r.add(diag.Errorf(req.obj, "spec.requests", "no operands are rendered for this OperandRequest: ODLM stops before its operands when any of its operators fails (see the other errors)"))
			}
			continue
		}
		for _, w := range req.wants {
			ops.renderWant(w, doneServices)
		}
	}
}

func (ops *operandsStep) renderWant(w *want, doneServices map[string]bool) {
	e := w.entry
	if e.InstallMode == api.InstallModeNoOp {
		return
	}
	var sub *subscriptionPlan
	if !e.UserManaged {
		if sub = ops.r.subscriptionFor(w); sub == nil {
			return
		}
		// no-OLM: no InstallPlan, CSV or channel to check (docs/semantics.md, The no-OLM variant)
		if !ops.r.opts.ODLMNoOLM && (!ops.checkInstallStatus(w, sub) || !ops.channelGate(w, sub)) {
			return
		}
	}
	// what this operand renders waits for its operator (ordering annotations)
	if sub != nil {
		defer ops.attributeTo(sub, len(ops.r.pass.renderedList))
	}
	if w.operand.Kind != "" {
		ops.requestCR(w)
		return
	}
	cfg := ops.r.inputs.configAt(w.registry.key)
	if cfg == nil {
		return
	}
	svc, si := cfg.service(e)
	if svc == nil {
		return
	}
	svcKey := cfg.key.String() + "#" + svc.Name
	if doneServices[svcKey] {
		return
	}
	doneServices[svcKey] = true
	specField := manifest.Field("spec.services", si, "spec")
	if e.UserManaged && len(svc.Spec) > 0 {
		ops.r.add(diag.Errorf(cfg.obj, specField, "operator %q is userManaged: ODLM requires its OperandConfig spec to be empty and renders nothing for it", e.Name))
		return
	}
	ops.r.pass.results = append(ops.r.pass.results, renderResources(ops.r, cfg, svc, si)...)
	if e.UserManaged || len(svc.Spec) == 0 {
		return
	}
	if ops.r.opts.ODLMNoOLM {
		if bundle := ops.r.trackers.operatorDeployment(w); bundle != nil {
			ops.configCRs(cfg, svc, si, bundle)
		}
		return
	}
	if ops.r.catalogs.Empty() {
		ops.r.add(diag.Errorf(cfg.obj, specField, "operand CRs of operator %q come from its CSV's alm-examples: give a catalog (--catalog)", e.Name))
		return
	}
	// the bundle is looked up only here: a package the catalog lacks matters only when
	// its alm-examples are needed
	if bundle := ops.headBundle(w, sub); bundle != nil {
		ops.configCRs(cfg, svc, si, bundle)
	}
}

// checkInstallStatus rejects an input Subscription whose status ODLM dereferences and
// crashes on: status.install set without status.installPlanRef (docs/semantics.md, Operand custom resources: preconditions).
func (ops *operandsStep) checkInstallStatus(w *want, sub *subscriptionPlan) bool {
	if sub.existing == nil {
		return true
	}
	status, _ := sub.existing.Map["status"].(map[string]any)
	if status["install"] == nil || status["installPlanRef"] != nil {
		return true
	}
	ops.r.add(diag.Errorf(sub.existing, "status.installPlanRef", "is missing while status.install is set: the controller crashes reading it when it reconciles the operands of %q (requested by %s)", w.entry.Name, w.request.key))
	return false
}

// channelGate is docs/semantics.md, Subscriptions: channel gate: operands only when the Subscription's channel is the
// request's resolved channel or one of the entry's fallbackChannels.
func (ops *operandsStep) channelGate(w *want, sub *subscriptionPlan) bool {
	ch := w.channel
	if ch == "" {
		ch = w.entry.Channel
	}
	current := sub.channel()
	if current == ch || slices.Contains(w.entry.FallbackChannels, current) {
		return true
	}
	// an empty channel is the package's default channel (docs/semantics.md, Decided deviations: empty channel)
	if pkg, ok := ops.r.packageOf(sub, sub.packageName(w.entry)); ok && pkg.ChannelOrDefault(current) == pkg.ChannelOrDefault(ch) {
		return true
	}
	ops.r.add(diag.Warnf(w.request.obj, w.field("name"), "Subscription %s/%s is on channel %q, not %q or a fallback channel: ODLM renders no operands of %q for this request", sub.namespace, sub.name, current, ch, w.entry.Name))
	return false
}

// headBundle is the CSV OLM installs once converged: the head of the Subscription's channel.
func (ops *operandsStep) headBundle(w *want, sub *subscriptionPlan) *catalog.Bundle {
	if ops.r.catalogs.Empty() {
		return nil
	}
	pkgName := sub.packageName(w.entry)
	pkg, ok := ops.r.packageOf(sub, pkgName)
	if !ok {
		ops.r.add(diag.Errorf(w.entry.registry.obj, w.entry.field("packageName"), "package %q is not in the catalog", pkgName))
		return nil
	}
	b, err := pkg.HeadBundle(sub.channel())
	if err != nil {
		ops.r.add(diag.Errorf(w.entry.registry.obj, w.entry.field("channel"), "%v", err))
		return nil
	}
	return b
}

// configCRs renders the CRs of one OperandConfig service from the CSV's alm-examples (docs/semantics.md, Operand custom resources).
func (ops *operandsStep) configCRs(cfg *operandConfig, svc *api.ConfigService, si int, b *catalog.Bundle) {
	examples, err := ops.r.cache.examples(b)
	if err != nil {
		ops.r.add(diag.Errorf(cfg.obj, manifest.Field("spec.services", si, "spec"), "%v", err))
		return
	}
	if examples == nil {
		ops.r.add(diag.Errorf(cfg.obj, manifest.Field("spec.services", si, "spec"), "bundle %s of package %q has no alm-examples, so ODLM cannot create the CRs this service configures", b.Name, b.Package))
		return
	}
	// templates apply to the whole service spec: one that fails or waits holds back every
	// CR of the service (docs/semantics.md, Operand custom resources)
	resolved, marks, ok := ops.r.templates.resolve(site{
		config:  cfg,
		field:   manifest.Field("spec.services", si, "spec"),
		what:    fmt.Sprintf("every CR of service %q", svc.Name),
		outputs: exampleRefs(examples, svc.Spec, cfg.key.Namespace),
	}, svc.Spec)
	if !ok {
		return
	}
	spec, _ := resolved.(map[string]any)
	ops.crsFromExamples(serviceSpec{cfg: cfg, index: si, spec: spec, marks: marks, bundle: b}, examples)
}

// serviceSpec is the spec of one OperandConfig service, its templates resolved: the keys
// that name the kinds of alm-examples, the fields that hold a value derived from a Secret,
// and the bundle whose alm-examples it configures.
type serviceSpec struct {
	cfg    *operandConfig
	index  int
	spec   map[string]any
	marks  secret.Fields
	bundle *catalog.Bundle
}

// field is the path of the service's spec, or of a key of it.
func (svc serviceSpec) field(key ...string) string {
	if len(key) == 0 {
		return manifest.Field("spec.services", svc.index, "spec")
	}
	return manifest.Field("spec.services", svc.index, "spec", key[0])
}

// crsFromExamples renders a CR for each alm-example whose kind a key of the service spec
// names (the key's fragment merged into the example's spec), and warns about keys that
// match no example ODLM uses.
func (ops *operandsStep) crsFromExamples(svc serviceSpec, examples []map[string]any) {
	cfg, b := svc.cfg, svc.bundle
	kinds := manifest.SortedKeys(svc.spec)
	matched := map[string]bool{}
	// specless records configured kinds whose only examples have no spec, so that the
	// warning says why nothing is rendered
	specless := map[string]bool{}
	for xi, ex := range examples {
		kind, _ := ex["kind"].(string)
		var keys []string
		for _, k := range kinds {
			if strings.EqualFold(k, kind) {
				keys = append(keys, k)
			}
		}
		if exSpec, hasSpec := ex["spec"]; !hasSpec || exSpec == nil {
			// ODLM skips examples without a spec (status-only or data-only ones)
			for _, k := range keys {
				specless[k] = true
			}
			continue
		}
		if len(keys) > 1 {
			ops.r.add(diag.Warnf(cfg.obj, svc.field(), "keys %s all match kind %s: ODLM applies them in random order; odlm-render applies them in byte order", strings.Join(keys, ", "), kind))
		}
		for _, k := range keys {
			matched[k] = true
			// the fragment of key k is merged into the CR's spec
			ops.configCR(svc, k, ex, xi)
		}
	}
	for _, k := range kinds {
		switch {
		case matched[k]:
		case specless[k]:
			ops.r.add(diag.Warnf(cfg.obj, svc.field(k), "the alm-examples of kind %q in bundle %s have no spec, and ODLM skips such examples: nothing is rendered for it", k, b.Name))
		default:
			ops.r.add(diag.Warnf(cfg.obj, svc.field(k), "no alm-example of kind %q in bundle %s: nothing is rendered for it", k, b.Name))
		}
	}
}

// exampleRefs are the CRs a service spec makes from the alm-examples (before templating:
// template values never change which kinds a spec names).
func exampleRefs(examples []map[string]any, spec map[string]any, namespace string) []manifest.Ref {
	var out []manifest.Ref
	for _, ex := range examples {
		kind, _ := ex["kind"].(string)
		apiVersion, _ := ex["apiVersion"].(string)
		name, _ := manifest.Get(ex, "metadata", "name").(string)
		for k := range spec {
			if strings.EqualFold(k, kind) {
				out = append(out, manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name})
				break
			}
		}
	}
	return out
}

// specStep is the path of a CR's spec, where an OperandConfig fragment or an OperandRequest
// operand's spec goes.
var specStep = []manifest.PathStep{{Key: "spec"}}

// configCR renders one CR of a service: alm-example xi, ex, with the fragment under specKey
// merged into its spec.
func (ops *operandsStep) configCR(svc serviceSpec, specKey string, ex map[string]any, xi int) {
	cfg, b, fragment := svc.cfg, svc.bundle, svc.spec[specKey]
	// the fields of the CR that hold a value derived from a Secret
	marks := svc.marks.Under([]manifest.PathStep{{Key: specKey}}).Prefixed(specStep)
	field := svc.field(specKey)
	name, _ := manifest.Get(ex, "metadata", "name").(string)
	if name == "" {
		ops.r.add(diag.Errorf(cfg.obj, field, "alm-example %d (kind %v) of bundle %s has no metadata.name, so ODLM cannot create it", xi, ex["kind"], b.Name))
		return
	}
	if fragment == nil {
		ops.r.add(diag.Errorf(cfg.obj, field, "is null: ODLM crashes merging a null spec into the alm-example (write {} for no changes)"))
		return
	}
	if _, ok := fragment.(map[string]any); !ok {
		ops.r.add(diag.Errorf(cfg.obj, field, "must be a mapping (the fields merged into the %s spec)", specKey))
		return
	}
	obj := manifest.New(merge.DeepCopy(ex).(map[string]any))
	delete(obj.Map, "status")
	md := manifest.EnsureMap(obj.Map, "metadata")
	md["namespace"] = cfg.key.Namespace
	obj.SetMetadataString("labels", naming.ControlLabel, "true")
	ref := obj.Ref()
	ops.replaceRequestCR(ref, schemaAnchor{about: cfg.obj, field: field}) // samename.go

	if prev := ops.existingOperand(ref); prev != nil {
		// day 2 (docs/semantics.md, Operand custom resources: day 2): alm-example, then what exists, then the OperandConfig fragment
		base, err := merge.Merge(ex["spec"], prev.Map["spec"])
		if err == nil {
			base, err = merge.Merge(base, fragment)
		}
		if err != nil {
			ops.r.add(diag.Errorf(cfg.obj, field, "%v", err))
			return
		}
		prev.Map["spec"] = base
		ops.r.cache.markSecret(prev, marks)
		return
	}
	if ops.unlabelledInput(ref, cfg.obj, field) {
		return
	}
	spec, err := merge.Merge(ex["spec"], fragment)
	if err != nil {
		ops.r.add(diag.Errorf(cfg.obj, field, "%v", mergeErrorIn(err, "the alm-example spec")))
		return
	}
	obj.Map["spec"] = spec
	ops.r.facts.of(obj).producer = &producer{config: cfg.obj, field: field}
	kind, _ := ex["kind"].(string)
	ops.r.facts.of(obj).anchor = &schemaAnchor{about: cfg.obj, field: field, example: &almExample{bundle: b.Name, kind: kind, fragment: fragment}}
	ops.r.cache.markSecret(obj, marks)
	ops.r.emit(obj)
}

func mergeErrorIn(err error, what string) error {
	return &wrapped{what: what, err: err}
}

type wrapped struct {
	what string
	err  error
}

func (w *wrapped) Error() string { return "merging into " + w.what + ": " + w.err.Error() }

// existingOperand returns the object the render already produced for ref, or the input
// with ODLM's label (which then takes the input's place in the output).
func (ops *operandsStep) existingOperand(ref manifest.Ref) *manifest.Object {
	if o, ok := ops.r.pass.rendered[ref.Key()]; ok {
		return o
	}
	in, ok := ops.r.inputs.byRef[ref.Key()]
	if !ok {
		return nil
	}
	if _, odlm := in.Labels()[naming.ControlLabel]; !odlm {
		return nil
	}
	cp := manifest.New(merge.DeepCopy(in.Map).(map[string]any))
	cp.Source = in.Source
	ops.r.pass.replaced[in] = cp
	ops.r.pass.rendered[ref.Key()] = cp
	return cp
}

// unlabelledInput reports an existing object ODLM would find and leave alone: an input
// (any: a labelled one is existingOperand's), or one without ODLM's label in the snapshot or
// the live cluster. A labelled one there is what this render emitted before: it is rendered
// again as the render owns it.
func (ops *operandsStep) unlabelledInput(ref manifest.Ref, about *manifest.Object, field string) bool {
	if in, ok := ops.r.inputs.byRef[ref.Key()]; ok {
		ops.r.add(diag.Infof(in, "metadata.labels", "exists without ODLM's %s label: ODLM leaves it unchanged", naming.ControlLabel))
		return true
	}
	if o := ops.r.clusterObject(ref, about, field); o != nil {
		if _, odlm := o.Labels()[naming.ControlLabel]; !odlm {
			ops.r.add(diag.Infof(about, field, "%s exists in the %s without ODLM's %s label: ODLM leaves it unchanged, so it is not rendered", ref, ops.r.lookups.originOf[o], naming.ControlLabel))
			return true
		}
	}
	return false
}

// emit adds a rendered object.
func (r *run) emit(o *manifest.Object) {
	k := o.Ref().Key()
	if _, dup := r.pass.rendered[k]; dup {
		return
	}
	r.templates.markCarriedReference(o)
	r.pass.rendered[k] = o
	r.pass.renderedList = append(r.pass.renderedList, o)
}

// attributeTo records the objects emitted since the from-th as operands of sub's operator.
func (ops *operandsStep) attributeTo(sub *subscriptionPlan, from int) {
	for _, o := range ops.r.pass.renderedList[from:] {
		ops.r.facts.of(o).operator = sub
	}
}

// requestCR renders the CR an OperandRequest operand defines itself (docs/semantics.md, Operand custom resources).
func (ops *operandsStep) requestCR(w *want) {
	op := w.operand
	req := w.request
	name := op.InstanceName
	if name == "" {
		name = naming.RequestCRName(req.key.Name, op.APIVersion, op.Kind, w.index)
	}
	obj := manifest.New(map[string]any{
		"apiVersion": op.APIVersion,
		"kind":       op.Kind,
		"metadata": map[string]any{
			"name":      name,
			"namespace": req.key.Namespace,
			"labels":    map[string]any{naming.ControlLabel: "true"},
		},
	})
	ref := obj.Ref()
	if ops.requestCRShadowed(ref, schemaAnchor{about: req.obj, field: w.field("spec")}) { // samename.go
		return
	}
	// an OperandRequest the previous round emitted may hold a Secret's value in the spec
	marks := ops.r.cache.secretFieldsUnder(req.obj, w.field("spec")).Prefixed(specStep)
	if prev := ops.existingOperand(ref); prev != nil {
		spec, err := merge.Merge(prev.Map["spec"], op.Spec.Value)
		if err != nil {
			ops.r.add(diag.Errorf(req.obj, w.field("spec"), "%v", err))
			return
		}
		prev.Map["spec"] = spec
		ops.r.cache.markSecret(prev, marks)
		return
	}
	if ops.unlabelledInput(ref, req.obj, w.field("kind")) {
		return
	}
	obj.Map["spec"] = merge.DeepCopy(op.Spec.Value)
	ops.r.facts.of(obj).anchor = &schemaAnchor{about: req.obj, field: w.field("spec")}
	ops.r.cache.markSecret(obj, marks)
	ops.r.emit(obj)
}

// parsedExamples is a bundle's alm-examples, parsed once per render (the examples are read,
// never modified: every CR is a copy).
type parsedExamples struct {
	list []map[string]any
	err  error
}

func (c *renderCache) examples(b *catalog.Bundle) ([]map[string]any, error) {
	if p, ok := c.examplesCache[b]; ok {
		return p.list, p.err
	}
	list, err := b.Examples()
	if c.examplesCache != nil {
		c.examplesCache[b] = parsedExamples{list, err}
	}
	return list, err
}
