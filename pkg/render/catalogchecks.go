package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/olm"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// catalogChecks applies what a catalog knows to every Subscription the render writes:
// version pins (--pin), deprecations, the CSV's install modes against its OperatorGroup, its
// minKubeVersion against the cluster's version (--kube-version, minkubeversion.go), and
// (--check-pins) whether a pin is still the head and reachable from what is installed.
func (oi *olmInstall) catalogChecks() {
	if oi.r.catalogs.Empty() {
		if oi.r.opts.Pin || oi.r.opts.CheckPins {
			oi.r.add(diag.Errorf(nil, "", "--pin and --check-pins need a catalog (--catalog)"))
		}
		return
	}
	oi.refusedCatalogs()
	cluster := oi.clusterVersionOf()
	for _, p := range oi.r.operators.subscriptions {
		if p.obj == nil {
			continue
		}
		pkg, ok := oi.r.packageOf(p, p.obj.String("spec", "name"))
		if !ok {
			continue // reported where the package was resolved
		}
		ch := pkg.ChannelOrDefault(p.obj.String("spec", "channel"))
		head, err := pkg.HeadBundle(ch)
		if err != nil {
			oi.r.add(diag.Errorf(p.obj, "spec.channel", "%v", err))
			continue
		}
		if oi.r.opts.Pin {
			oi.pin(p, head)
		}
		oi.deprecations(p, pkg, ch)
		if p.existing == nil {
			oi.checkInstallModes(p, head)
		}
		oi.checkMinKubeVersion(p, pkg, head, cluster)
		oi.dependencies(p, head)
		if oi.r.opts.CheckPins {
			oi.checkPin(p, pkg, ch, head)
		}
	}
}

// about returns the object results about a Subscription should point at: its registry
// entry (an input with a file and line) when there is one.
func (p *subscriptionPlan) about() (*manifest.Object, string) {
	if len(p.contributions) > 0 {
		e := p.contributions[0].entry
		return e.registry.obj, e.field("packageName")
	}
	return p.obj, "spec"
}

// csvName is the CSV name of a bundle (the bundle name by FBC convention).
func csvName(b *catalog.Bundle) string {
	if b.CSVName != "" {
		return b.CSVName
	}
	return b.Name
}

// pin locks a Subscription to the head of its channel: startingCSV, and Manual approval when
// asked, so that a render is a reproducible version lock.
func (oi *olmInstall) pin(p *subscriptionPlan, head *catalog.Bundle) {
	spec := manifest.EnsureMap(p.obj.Map, "spec")
	want := csvName(head)
	if cur, _ := spec["startingCSV"].(string); cur != "" && cur != want {
		obj, field := p.about()
		oi.r.add(diag.Warnf(obj, field, "--pin replaces startingCSV %q of Subscription %s/%s with the channel head %q", cur, p.namespace, p.name, want))
	}
	spec["startingCSV"] = want
	if oi.r.opts.ManualApproval {
		spec["installPlanApproval"] = "Manual"
	}
}

// deprecations warns (or errs, with FailOnDeprecated) about olm.deprecations entries of the
// package, the channel or the bundle a Subscription installs.
func (oi *olmInstall) deprecations(p *subscriptionPlan, pkg *catalog.Package, ch string) {
	sev := diag.Warning
	if oi.r.opts.FailOnDeprecated {
		sev = diag.Error
	}
	obj, field := p.about()
	bundle := p.obj.String("spec", "startingCSV")
	if bundle == "" {
		if head, err := pkg.HeadBundle(ch); err == nil {
			bundle = head.Name
		}
	}
	for _, ref := range [][2]string{{"olm.package", ""}, {"olm.channel", ch}, {"olm.bundle", bundle}} {
		if d, ok := pkg.DeprecationFor(ref[0], ref[1]); ok {
			what := "package " + pkg.Name
			if ref[1] != "" {
				what = strings.TrimPrefix(ref[0], "olm.") + " " + ref[1] + " of package " + pkg.Name
			}
			oi.r.add(diag.About(sev, obj, field, "%s is deprecated: %s", what, d.Message))
		}
	}
}

// checkInstallModes compares the OperatorGroup a new Subscription lands in with the install
// modes the CSV supports (OLM refuses the CSV otherwise). OLM v1, which writes no
// OperatorGroup, checks the modes it can install in its own terms (olmv1.go), and without OLM
// the plain install checks them, as an error (plain.go).
func (oi *olmInstall) checkInstallModes(p *subscriptionPlan, head *catalog.Bundle) {
	if len(head.InstallModes) == 0 || oi.r.opts.OLM == OLMNone || oi.r.opts.OLM == OLMv1 {
		return
	}
	mode, og := oi.installModeOf(p.namespace)
	if mode == "" {
		return
	}
	for _, m := range head.InstallModes {
		if string(m.Type) == mode && m.Supported {
			return
		}
	}
	var supported []string
	for _, m := range head.InstallModes {
		if m.Supported {
			supported = append(supported, string(m.Type))
		}
	}
	obj, field := p.about()
	oi.r.add(diag.Warnf(obj, field, "the CSV %s supports install modes %s, but %s makes it %s: OLM will refuse it (use installMode cluster for AllNamespaces, or targetNamespaces)", csvName(head), strings.Join(supported, ", "), og, mode))
}

// installModeOf says which install mode the OperatorGroup of a namespace gives its
// operators: AllNamespaces in openshift-operators or for a group without targets,
// OwnNamespace for its own namespace, SingleNamespace or MultiNamespace otherwise.
func (oi *olmInstall) installModeOf(namespace string) (string, string) {
	if namespace == clusterInstallNamespace {
		return olm.AllNamespaces, "installing into " + clusterInstallNamespace
	}
	var og *manifest.Object
	for _, o := range append(append([]*manifest.Object{}, oi.r.operators.operatorGroups...), oi.r.inputs.objects...) {
		if o.Kind() == "OperatorGroup" && o.Group() == olmGroup && o.Namespace() == namespace {
			og = o
			break
		}
	}
	if og == nil {
		return "", ""
	}
	desc := fmt.Sprintf("OperatorGroup %s/%s", og.Namespace(), og.Name())
	targets, _ := manifest.Get(og.Map, "spec", "targetNamespaces").([]any)
	if _, hasSelector := manifest.Get(og.Map, "spec", "selector").(map[string]any); hasSelector {
		return "", "" // a label selector: targets known only in the cluster
	}
	switch {
	case len(targets) == 0:
		return olm.AllNamespaces, desc
	case len(targets) > 1:
		return olm.MultiNamespace, desc
	case targets[0] == namespace:
		return olm.OwnNamespace, desc
	default:
		return olm.SingleNamespace, desc
	}
}

// checkPin reports a startingCSV that is no longer the channel head, or that OLM cannot
// reach from the version installed (the Subscription's status in the inputs or a snapshot)
// along replaces, skips and skipRange.
func (oi *olmInstall) checkPin(p *subscriptionPlan, pkg *catalog.Package, ch string, head *catalog.Bundle) {
	pin := p.obj.String("spec", "startingCSV")
	if pin == "" {
		return
	}
	obj, field := p.about()
	if pin != csvName(head) {
		oi.r.add(diag.Warnf(obj, field, "pin %s of Subscription %s/%s is no longer the head of channel %s (the head is %s)", pin, p.namespace, p.name, ch, csvName(head)))
	}
	sub, _, found, err := oi.r.lookup(subscriptionAPIVersion, "Subscription", p.namespace, p.name)
	if err != nil {
		oi.r.add(diag.Warnf(obj, field, "--check-pins: cannot read the installed version of Subscription %s/%s, so pin %s is not checked against it: %v", p.namespace, p.name, pin, err))
		return
	}
	if !found {
		return
	}
	installed, _ := manifest.Get(sub, "status", "installedCSV").(string)
	if installed == "" || installed == pin {
		return
	}
	if pkg.Channels[ch] == nil {
		return
	}
	_, err = upgradepath.Find(pkg, ch, installed, pin)
	var none *upgradepath.NoPathError
	switch {
	case errors.As(err, &none):
		why := none.Reason.Error()
		if none.Detail != "" {
			why += ": " + none.Detail
		}
		oi.r.add(diag.Warnf(obj, field, "pin %s of Subscription %s/%s cannot be reached from the installed %s along channel %s (replaces, skips, skipRange; OLM takes the update nearest the channel head): %s: OLM will not upgrade to it", pin, p.namespace, p.name, installed, ch, why))
	case err != nil:
		oi.r.add(diag.Warnf(obj, field, "--check-pins: channel %s of package %s: %v", ch, pkg.Name, err))
	}
}

// refusedCatalogs warns, under OLM v0, about each CatalogSource a Subscription uses whose
// catalog `opm serve` refuses (catalog.Catalog.OPMRefusals): the CatalogSource serves
// nothing, so OLM installs and updates nothing from it, although the render reads the
// catalog. One warning per CatalogSource, at its first Subscription, naming the reasons.
func (oi *olmInstall) refusedCatalogs() {
	if oi.r.opts.OLM != OLMv0 && oi.r.opts.OLM != "" {
		return
	}
	warned := map[string]bool{}
	for _, p := range oi.r.operators.subscriptions {
		if p.obj == nil {
			continue
		}
		ns, name := p.obj.String("spec", "sourceNamespace"), p.obj.String("spec", "source")
		key := ns + "/" + name
		cat := oi.r.catalogs.Of(ns, name)
		if cat == nil || warned[key] {
			continue
		}
		warned[key] = true
		refusals := cat.OPMRefusals()
		if len(refusals) == 0 {
			continue
		}
		var users []string
		for _, q := range oi.r.operators.subscriptions {
			if q.obj != nil && q.obj.String("spec", "sourceNamespace") == ns && q.obj.String("spec", "source") == name {
				users = append(users, q.namespace+"/"+q.name)
			}
		}
		const shown = 3
		var reasons []string
		for _, e := range refusals[:min(shown, len(refusals))] {
			reasons = append(reasons, e.Error())
		}
		more := ""
		if len(refusals) > shown {
			more = fmt.Sprintf(" (and %d more)", len(refusals)-shown)
		}
		obj, field := p.about()
		oi.r.add(diag.Warnf(obj, field, "CatalogSource %s: opm serve refuses its catalog, so the CatalogSource serves nothing and OLM installs and updates nothing from it (Subscriptions %s): %s%s",
			key, strings.Join(users, ", "), strings.Join(reasons, "; "), more))
	}
}
