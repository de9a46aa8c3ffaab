package render

import (
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// output assembles pass-through inputs and rendered objects, sorted.
func (r *run) output() Output {
	out := Output{Generated: map[*manifest.Object]bool{}}
	for _, o := range r.inputs.objects {
		if r.inputs.consumed[o] {
			continue
		}
		if repl, ok := r.pass.replaced[o]; ok {
			if repl != nil {
				out.Objects = append(out.Objects, repl)
				out.Generated[repl] = true
			}
			continue
		}
		out.Objects = append(out.Objects, o)
	}
	var generated []*manifest.Object
	for _, p := range r.operators.subscriptions {
		if p.obj != nil && p.existing == nil {
			generated = append(generated, p.obj)
		}
	}
	generated = append(generated, r.operators.operatorGroups...)
	// objects ODLM updates outside the inputs win over what a resource renders under the
	// same name (an OperandConfig resource that is itself a Subscription ODLM reconciles)
	updated := map[manifest.Key]bool{}
	for _, o := range r.operators.updatedElsewhere {
		updated[o.Ref().Key()] = true
		generated = append(generated, o)
	}
	for _, o := range r.pass.renderedList {
		if !updated[o.Ref().Key()] {
			generated = append(generated, o)
		}
	}
	switch {
	case r.opts.ODLMNoOLM:
	case r.opts.OLM == OLMv1:
		generated, r.operators.convertedTo = r.olmV1().toOLMv1(generated)
	case r.opts.OLM == OLMNone:
		generated, r.operators.convertedTo = r.plainInstall().toPlain(generated)
	}
	for _, o := range generated {
		out.Generated[o] = true
	}
	out.Objects = append(out.Objects, generated...)
	r.kinds.checkNames(out.Objects)
	manifest.Sort(out.Objects)
	out.Results = r.pass.results.Sort()
	return out
}

// keptV0Subscription is the warning for a Subscription the cluster already has (OLM v0
// installed the operator) under --olm v1 or none: ODLM updates it, so it stays a Subscription,
// and writing the operator's install again in the other form (instead, for target) would
// install the same objects a second time.
func keptV0Subscription(p *subscriptionPlan, sub *manifest.Object, instead, target string) diag.Result {
	about, field := sub, "spec"
	installed := ""
	if p != nil {
		about, field = p.about()
		if csv := p.existing.String("status", "installedCSV"); csv != "" {
			installed = ", " + csv + " installed"
		}
	}
	return diag.Warnf(about, field, "Subscription %s/%s exists in the cluster (OLM v0%s): ODLM updates it, so it stays a Subscription and %s is not written for package %s; writing it beside the Subscription would install the same objects again. To move the operator to %s, delete the Subscription and its CSV first (the CRDs and custom resources stay), then render again",
		sub.Namespace(), sub.Name(), installed, instead, sub.String("spec", "name"), target)
}

// plansByObject splits a round's Subscription plans by the Subscription object they write:
// created, the ones the render creates (an output form other than OLM v0's replaces them),
// and updated, the ones ODLM updates in the cluster (they stay Subscriptions).
func plansByObject(plans []*subscriptionPlan) (created, updated map[*manifest.Object]*subscriptionPlan) {
	created, updated = map[*manifest.Object]*subscriptionPlan{}, map[*manifest.Object]*subscriptionPlan{}
	for _, p := range plans {
		switch {
		case p.obj != nil && p.existing == nil:
			created[p.obj] = p
		case p.obj != nil:
			updated[p.obj] = p
		}
	}
	return created, updated
}

// bundleInstalledBy is the bundle a plan's Subscription installs once converged, among the
// round's installed bundles; nil when the catalog does not say.
func bundleInstalledBy(installed []subscribedBundle, p *subscriptionPlan) *catalog.Bundle {
	for _, ib := range installed {
		if ib.plan == p {
			return ib.bundle
		}
	}
	return nil
}
