package render

import (
	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/kubeversion"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// OLM (v0) installs a CSV only when its spec.minKubeVersion is at most the cluster's
// Kubernetes version; otherwise, or when it cannot read the minKubeVersion, the CSV stays
// Pending with the reason RequirementsNotMet. When the render knows the cluster's version
// (Options.KubeVersion), the catalog checks say so offline.

// clusterVersion is the cluster's Kubernetes version for the minKubeVersion check: ok is
// false when the render does not know it (no KubeVersion, or one that does not parse).
type clusterVersion struct {
	text    string
	version semver.Version
	ok      bool
}

// clusterVersionOf reads Options.KubeVersion; it warns, once, when it is set but not a
// version.
func (oi *olmInstall) clusterVersionOf() clusterVersion {
	text := oi.r.opts.KubeVersion
	if text == "" || oi.r.opts.OLM == OLMv1 || oi.r.opts.OLM == OLMNone {
		return clusterVersion{}
	}
	v, err := kubeversion.ParseCluster(text)
	if err != nil {
		oi.r.add(diag.Warnf(nil, "", "--kube-version %q is not a Kubernetes version (such as 1.31, v1.31.2 or 1.31.2+k3s1): the bundles' minKubeVersion is not checked: %v", text, err))
		return clusterVersion{}
	}
	return clusterVersion{text: text, version: v, ok: true}
}

// checkMinKubeVersion warns when OLM will not install a bundle the Subscription installs
// because of its minKubeVersion: the channel head (the pin, with --pin), and the bundle its
// startingCSV names when that is another one and nothing is installed yet (OLM installs it
// first).
func (oi *olmInstall) checkMinKubeVersion(p *subscriptionPlan, pkg *catalog.Package, head *catalog.Bundle, cluster clusterVersion) {
	if !cluster.ok {
		return
	}
	bundles := []*catalog.Bundle{head}
	if start := p.obj.String("spec", "startingCSV"); start != "" && start != csvName(head) && !p.installed() {
		if b := pkg.BundleByCSV(start); b != nil {
			bundles = append([]*catalog.Bundle{b}, bundles...)
		}
	}
	obj, field := p.aboutChannel()
	for _, b := range bundles {
		if msg := minKubeVersionProblem(b, cluster); msg != "" {
			oi.r.add(diag.Warnf(obj, field, "Subscription %s/%s: %s: OLM will not install it (RequirementsNotMet)", p.namespace, p.name, msg))
		}
	}
}

// minKubeVersionProblem says why OLM refuses the bundle on the cluster ("" when it does not).
func minKubeVersionProblem(b *catalog.Bundle, cluster clusterVersion) string {
	return kubeversion.Problem(b.Name, b.MinKubeVersion, cluster.text, cluster.version)
}

// installed tells that the input Subscription says a CSV is installed (status.installedCSV).
func (p *subscriptionPlan) installed() bool {
	return p.existing != nil && p.existing.String("status", "installedCSV") != ""
}

// aboutChannel is where a result about the channel a Subscription follows points: its
// registry entry's channel, else the Subscription's spec.channel.
func (p *subscriptionPlan) aboutChannel() (*manifest.Object, string) {
	if len(p.contributions) > 0 {
		e := p.contributions[0].entry
		return e.registry.obj, e.field("channel")
	}
	return p.obj, "spec.channel"
}
