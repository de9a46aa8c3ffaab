package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/internal/diag"
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
	v, err := parseKubeVersion(text)
	if err != nil {
		oi.r.add(diag.Warnf(nil, "", "--kube-version %q is not a Kubernetes version (such as 1.31, v1.31.2 or 1.31.2+k3s1): the bundles' minKubeVersion is not checked: %v", text, err))
		return clusterVersion{}
	}
	return clusterVersion{text: text, version: v, ok: true}
}

// parseKubeVersion reads a cluster's Kubernetes version as the image template rules do
// (resolveImageTemplate): a leading v is dropped, a missing minor or patch is 0, and what
// follows the patch number (-rc.1, +k3s1) is left out, as OLM leaves out what follows a "-"
// of the server's version (build metadata, after a "+", does not count in a comparison).
func parseKubeVersion(text string) (semver.Version, error) {
	parts := strings.SplitN(strings.TrimPrefix(text, "v"), ".", 3)
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	if i := strings.IndexAny(parts[2], "-+"); i >= 0 {
		parts[2] = parts[2][:i]
	}
	var n [3]uint64
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return semver.Version{}, fmt.Errorf("%q is not a number", p)
		}
		n[i] = v
	}
	return semver.Version{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// parseMinKubeVersion reads a CSV's minKubeVersion as OLM does: a leading v is dropped, and
// the rest must be a whole semantic version, major.minor.patch ("1.25" is not one: OLM
// reports "CSV version parsing error" and does not install the CSV).
func parseMinKubeVersion(text string) (semver.Version, error) {
	return semver.Parse(strings.TrimPrefix(text, "v"))
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
		if b := bundleByCSV(pkg, start); b != nil {
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
	if b.MinKubeVersion == "" {
		return ""
	}
	min, err := parseMinKubeVersion(b.MinKubeVersion)
	if err != nil {
		return fmt.Sprintf("bundle %s has minKubeVersion %q, which OLM cannot read as major.minor.patch (%v)", b.Name, b.MinKubeVersion, err)
	}
	if min.GT(cluster.version) {
		return fmt.Sprintf("bundle %s needs Kubernetes %s or later (minKubeVersion), and the cluster is %s (--kube-version)", b.Name, b.MinKubeVersion, cluster.text)
	}
	return ""
}

// bundleByCSV is the bundle of pkg whose CSV is named csv (nil when none is).
func bundleByCSV(pkg *catalog.Package, csv string) *catalog.Bundle {
	for _, name := range pkg.BundleNames() {
		if b := pkg.Bundles[name]; csvName(b) == csv {
			return b
		}
	}
	return nil
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
