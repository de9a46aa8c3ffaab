package render

// Meta Operator inputs (MetaOperatorCatalog, MetaOperatorConfig, MetaOperatorSet: ODLM's
// predecessor) render like their ODLM counterparts. Before the ODLM pipeline they are
// converted (internal/metaop) into an OperandRegistry, an OperandConfig and an OperandRequest,
// which the pipeline consumes like ODLM inputs; afterwards what came from them is made to
// look like what the Meta Operator creates, and the converted objects, which do not exist
// in any cluster, never reach the output (the Meta inputs themselves are kept with
// KeepInputs or local-config, as ODLM inputs are). Objects rendered from real ODLM inputs
// in the same render are unaffected.
//
//   - Subscriptions created only for Meta Sets carry operator.ibm.com/css-control: "true"
//     instead of ODLM's opreq-control label, and none of ODLM's registry, config and
//     per-request annotations (the converted OperandRequest does not exist in the cluster).
//     They keep ODLM's name (the package name), so that rendering the Meta CRs and rendering
//     their `convert` output give the same Subscriptions up to that label and those
//     annotations. A Subscription a real OperandRequest also reconciles stays ODLM's (its
//     label, its real requests' annotations), with a warning.
//   - OperatorGroups created only for Meta Subscriptions carry the css-control label
//     instead of ODLM's; name and spec are ODLM's (an operator without targetNamespaces in
//     the catalog gets an OperatorGroup without targetNamespaces, as the Meta Operator made).
//   - Operand CRs are exactly what ODLM renders from the converted objects (the
//     alm-example merged with the Config's fragment, in the Config's namespace, with ODLM's
//     opreq-control label), so that a later move to ODLM adopts them with its day-2 merge.
//   - Input Subscriptions labelled css-control (cluster state the Meta Operator made) are
//     reconciled as the Meta Operator does: one of a present operator moves to the operator's
//     channel and is then updated as ODLM updates its own (catalog source, approval,
//     annotations of real requests), keeping its own labels; one of an absent operator is
//     left out of the output (the Meta Operator deletes it and its CSV), with a warning. ODLM itself leaves such
//     Subscriptions alone, so after `convert` relabel them opreq-control to have ODLM adopt
//     them.
//   - Results about the converted objects name the Meta object, field and line they came
//     from; a real OperandRequest naming a converted registry is an error (ODLM never reads
//     Meta Operator CRs).

import (
	"slices"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/metaop"
	"github.com/odlm-render/odlm-render/internal/naming"
)

// metaRun is what a render keeps of its Meta Operator inputs between prepareMeta and
// finishMeta; nil when there are none.
type metaRun struct {
	conv *metaop.Conversion
	// adopted maps the relabelled copy of a css-control input Subscription to the input
	adopted map[*manifest.Object]*manifest.Object
	results diag.Results
}

// prepareMeta converts the Meta Operator inputs into ODLM objects that take their place
// among the inputs.
func prepareMeta(in Inputs, opts Options) (Inputs, *metaRun) {
	found := false
	for _, o := range in.Objects {
		if metaop.IsInput(o) || metaop.KindTypo(o) != "" {
			found = true
			break
		}
	}
	if !found {
		return in, nil
	}
	m := &metaRun{
		conv:    metaop.Analyze(in.Objects, metaop.Options{DefaultNamespace: opts.DefaultNamespace}),
		adopted: map[*manifest.Object]*manifest.Object{},
	}
	m.results = append(m.results, m.conv.Results...)
	var objs []*manifest.Object
	for _, o := range m.conv.Others {
		if o.Kind() == "Subscription" && o.Group() == olmGroup {
			var keep bool
			if o, keep = m.existingSubscription(o); !keep {
				continue
			}
		}
		objs = append(objs, o)
	}
	for _, u := range m.conv.Units {
		for _, o := range []*manifest.Object{u.Registry, u.OperandConfig, u.Request} {
			// a config without a catalog renders nothing (metaop warned about it)
			if o != nil && (o != u.OperandConfig || u.Registry != nil) {
				objs = append(objs, o)
			}
		}
	}
	return Inputs{Objects: objs, Catalog: in.Catalog}, m
}

// existingSubscription is the Meta Operator's reconcile of a Subscription found among the
// inputs: one labelled css-control (and not opreq-control) in the namespace of a catalog
// operator of a unit with a Set, named like the operator or subscribing to its package, is
// updated when the operator is present (a copy with ODLM's label, so that the pipeline
// reconciles it) and deleted when it is absent. Others are returned as they are.
func (m *metaRun) existingSubscription(s *manifest.Object) (*manifest.Object, bool) {
	labels := s.Labels()
	if _, css := labels[metaop.ControlLabel]; !css {
		return s, true
	}
	if _, odlm := labels[naming.ControlLabel]; odlm {
		return s, true
	}
	for _, u := range m.conv.Units {
		if u.Set == nil || u.Failed {
			continue
		}
		for _, op := range u.Operators {
			if s.Namespace() != op.Namespace || (s.Name() != op.Name && s.String("spec", "name") != op.PackageName) {
				continue
			}
			if !op.Present {
				m.results = append(m.results, diag.Warnf(s, "metadata.labels", "operator %q is not present in MetaOperatorSet %s/%s: the Meta Operator deletes this Subscription it created (and its CSV), so it is left out of the output", op.Name, u.Namespace, u.Name))
				return nil, false
			}
			cp := manifest.New(merge.DeepCopy(s.Map).(map[string]any))
			cp.Source = s.Source
			cp.SetMetadataString("labels", naming.ControlLabel, "true")
			// the Meta Operator's update: the channel the Set (or the Catalog) gives
			manifest.EnsureMap(cp.Map, "spec")["channel"] = op.Channel
			m.adopted[cp] = s
			return cp, true
		}
	}
	return s, true
}

// finishMeta makes what came from Meta inputs look like the Meta Operator's (see the top of
// this file) and takes the converted objects out of the output.
func (r *run) finishMeta(m *metaRun, out Output) Output {
	if m == nil {
		return out
	}
	metaRequest := func(w *want) bool { return m.conv.Produced(w.request.obj) }
	found := r.metaSubscriptions(m, metaRequest)
	r.metaOperatorGroups(metaRequest)
	// a real OperandRequest cannot use a converted registry: ODLM never reads Meta CRs
	for _, req := range r.inputs.requests {
		if m.conv.Produced(req.obj) {
			continue
		}
		for _, w := range req.wants {
			if m.conv.Produced(w.registry.obj) {
				found = append(found, diag.Errorf(req.obj, manifest.Field("spec.requests", w.block, "registry"), "registry %q in namespace %s is a MetaOperatorCatalog among the inputs, and ODLM never reads Meta Operator CRs: convert them (odlm-render convert) to request their operators", w.registry.key.Name, w.registry.key.Namespace))
			}
		}
	}

	var objs []*manifest.Object
	for _, o := range out.Objects {
		if m.conv.Produced(o) {
			delete(out.Generated, o)
			continue
		}
		if orig, ok := m.adopted[o]; ok {
			o = orig // not reconciled: passes through as it came
		}
		objs = append(objs, o)
	}
	for _, o := range m.conv.Inputs {
		if r.opts.KeepInputs || o.Annotations()[localConfigAnnotation] == "true" {
			objs = append(objs, o)
		}
	}
	manifest.Sort(objs)
	out.Objects = objs

	results := slices.Concat(out.Results, found) // a new slice: out.Results is not changed in place
	for i, res := range results {
		results[i] = m.conv.MapResult(res)
	}
	out.Results = append(results, m.results...).Sort()
	return out
}

// metaSubscriptions relabels the Subscriptions only Meta Sets reconcile and removes the
// annotations ODLM writes for the converted objects; it returns what it found.
func (r *run) metaSubscriptions(m *metaRun, metaRequest func(*want) bool) (found diag.Results) {
	for _, p := range r.operators.subscriptions {
		if p.obj == nil || p.obj.Kind() != "Subscription" {
			continue // no-OLM trackers stay ODLM's: the Meta Operator had no such mode
		}
		var metaWants, odlmWants []*want
		for _, w := range p.contributions {
			if metaRequest(w) {
				metaWants = append(metaWants, w)
			} else {
				odlmWants = append(odlmWants, w)
			}
		}
		if len(metaWants) == 0 {
			continue
		}
		annotations, _ := manifest.Get(p.obj.Map, "metadata", "annotations").(map[string]any)
		odlmRegistries := map[key]bool{}
		for _, w := range odlmWants {
			odlmRegistries[w.registry.key] = true
		}
		for _, w := range metaWants {
			req, reg, name := w.request.key, w.registry.key, w.entry.Name
			for _, k := range []string{
				naming.RequestAnnotation(req.Namespace, req.Name, name),
				naming.OperatorNamespaceAnnotation(req.Namespace, req.Name, name),
				naming.RequestConfigAnnotation(req.Namespace, req.Name, name),
			} {
				delete(annotations, k)
			}
			if !odlmRegistries[reg] {
				delete(annotations, naming.RegistryAnnotation(reg.Namespace, reg.Name))
				delete(annotations, naming.ConfigAnnotation(reg.Namespace, reg.Name))
			}
		}
		if annotations != nil && len(annotations) == 0 {
			delete(manifest.EnsureMap(p.obj.Map, "metadata"), "annotations")
		}
		_, adopted := m.adopted[p.existing]
		switch {
		case len(odlmWants) > 0:
			w := metaWants[0]
			found = append(found, diag.Warnf(w.request.obj, w.field("name"), "operator %q shares Subscription %s/%s with OperandRequest %s: the Subscription stays ODLM's (label %s), not the Meta Operator's", w.entry.Name, p.namespace, p.name, odlmWants[0].request.key, naming.ControlLabel))
		case p.existing == nil || adopted:
			labels := manifest.EnsureMap(manifest.EnsureMap(p.obj.Map, "metadata"), "labels")
			delete(labels, naming.ControlLabel)
			labels[metaop.ControlLabel] = "true"
		}
	}
	return found
}

// metaOperatorGroups relabels the OperatorGroups created only for Meta Subscriptions.
func (r *run) metaOperatorGroups(metaRequest func(*want) bool) {
	meta, odlm := map[string]bool{}, map[string]bool{}
	for _, p := range r.operators.subscriptions {
		if p.existing != nil || p.obj == nil {
			continue
		}
		for _, w := range contributors(p) {
			if metaRequest(w) {
				meta[w.entry.Namespace] = true
			} else {
				odlm[w.entry.Namespace] = true
			}
		}
	}
	for _, og := range r.operators.operatorGroups {
		if ns := og.Namespace(); meta[ns] && !odlm[ns] {
			labels := manifest.EnsureMap(manifest.EnsureMap(og.Map, "metadata"), "labels")
			delete(labels, naming.ControlLabel)
			labels[metaop.ControlLabel] = "true"
		}
	}
}
