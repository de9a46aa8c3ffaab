package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// namespaceSubscription is one Subscription of a namespace, as far as approval goes.
type namespaceSubscription struct {
	name   string
	manual bool
	plan   *subscriptionPlan // the render writes it; nil for an input it leaves alone
}

// checkSharedManualApproval warns where a Subscription the render writes shares its
// namespace with other Subscriptions and any of them is approved manually. OLM resolves all
// pending installs of a namespace into one InstallPlan (operator-lifecycle-manager#1859): a
// Manual Subscription holds back the Automatic ones beside it, and approving the plan
// installs everything in it. This is the trap behind per-namespace approver Jobs; the render
// only says so, it changes nothing.
func (oi *olmInstall) checkSharedManualApproval() {
	byNamespace := map[string][]namespaceSubscription{}
	seen := map[key]bool{}
	for _, p := range oi.r.operators.subscriptions {
		o, plan := p.obj, p
		if o == nil {
			o, plan = p.existing, nil
		}
		if o == nil {
			continue
		}
		seen[key{p.namespace, p.name}] = true
		byNamespace[p.namespace] = append(byNamespace[p.namespace], namespaceSubscription{p.name, isManual(o), plan})
	}
	for _, ns := range manifest.SortedKeys(byNamespace) {
		for _, o := range oi.r.existing(subscriptionAPIVersion, "Subscription", ns) {
			k := key{o.Namespace(), o.Name()}
			if seen[k] {
				continue
			}
			seen[k] = true
			byNamespace[k.Namespace] = append(byNamespace[k.Namespace], namespaceSubscription{k.Name, isManual(o), nil})
		}
	}
	for _, ns := range manifest.SortedKeys(byNamespace) {
		subs := byNamespace[ns]
		sort.Slice(subs, func(i, j int) bool { return subs[i].name < subs[j].name })
		var names, manual []string
		var about *subscriptionPlan
		for _, s := range subs {
			names = append(names, s.name)
			if s.manual {
				manual = append(manual, s.name)
			}
			// point at a written Manual Subscription, else at the first written one
			if s.plan != nil && (about == nil || s.manual && !isManual(about.obj)) {
				about = s.plan
			}
		}
		if len(subs) < 2 || len(manual) == 0 || about == nil {
			continue
		}
		obj, field := about.about()
		oi.r.add(diag.Warnf(obj, field, "Subscriptions %s share namespace %s and %s: OLM puts a namespace's pending installs into one InstallPlan (operator-lifecycle-manager#1859), so approving it installs them all and Automatic ones wait for that approval; give a manually approved operator a namespace of its own",
			strings.Join(names, ", "), ns, manualPhrase(manual, len(subs))))
	}
}

func isManual(o *manifest.Object) bool {
	return o.String("spec", "installPlanApproval") == "Manual"
}

// manualPhrase says which of n Subscriptions are approved manually.
func manualPhrase(manual []string, n int) string {
	switch {
	case len(manual) == n:
		return "all are approved manually"
	case len(manual) == 1:
		return manual[0] + " is approved manually"
	default:
		return fmt.Sprintf("%s are approved manually", strings.Join(manual, ", "))
	}
}
