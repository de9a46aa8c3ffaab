package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/olmv1resolve"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// OLM v1's kind a plan reads: with --olm v1 the render installs each operator through a
// cluster-scoped ClusterExtension, whose status says which bundle is installed (OLM v1 keeps
// no CSV).
const (
	olmV1APIVersion = "olm.operatorframework.io/v1"
	kindExtension   = "ClusterExtension"
)

// installedExtension is what the cluster's ClusterExtension named like in says of the
// operator: the bundle it installed (status.install.bundle.name) and the channel it follows
// (spec.source.catalog.channels, when it names exactly one). found is false when the cluster
// has no ClusterExtension of that name installing in's package, or does not serve them.
func (req Request) installedExtension(in render.Install) (bundle, version, channel string, found bool, err error) {
	ext, found, err := req.Cluster.Get(olmV1APIVersion, kindExtension, "", in.Name)
	if errors.Is(err, cluster.ErrNotServed) {
		return "", "", "", false, nil
	}
	if err != nil {
		return "", "", "", false, fmt.Errorf("reading ClusterExtension %s: %w", in.Name, err)
	}
	if !found || str(ext, "spec", "source", "catalog", "packageName") != in.Package {
		return "", "", "", false, nil
	}
	return str(ext, "status", "install", "bundle", "name"), str(ext, "status", "install", "bundle", "version"), extensionChannel(ext), true, nil
}

// extensionPath fills op.Path (and PathError) for an operator OLM v1 installed, by
// operator-controller's rules (internal/olmv1resolve): it moves a ClusterExtension in one step,
// to the bundle the rendered extension's spec selects among the direct successors of the
// installed one (any version, with upgradeConstraintPolicy SelfCertified), or refuses.
func (req Request) extensionPath(op *Operator, pkg *catalog.Package) {
	spec := req.renderedExtensionCatalog(op.Name)
	var channels []string
	for _, c := range sliceOf(spec["channels"]) {
		if ch, ok := c.(string); ok {
			channels = append(channels, ch)
		}
	}
	if len(channels) == 0 && op.Channel != "" {
		channels = []string{op.Channel}
	}
	version, _ := spec["version"].(string)
	self := spec["upgradeConstraintPolicy"] == "SelfCertified"
	installedVersion := op.fromVersion
	if b := pkg.Bundles[op.From]; installedVersion == "" && b != nil {
		installedVersion = b.Version
	}
	_, source, _ := strings.Cut(op.catalogSource, "/")
	res, err := olmv1resolve.Resolve([]olmv1resolve.Catalog{{Name: source, Content: req.Catalogs.OfKey(op.catalogSource)}}, olmv1resolve.Request{
		Package: op.Package, Channels: channels, Version: version, SelfCertified: self,
		Installed: &olmv1resolve.Installed{Name: op.From, Version: installedVersion},
	})
	if err != nil {
		op.PathError = "operator-controller will not update it: " + err.Error() + v0Steps(pkg, op, installedVersion)
		return
	}
	if res.Bundle.Name == op.From {
		if op.To != op.From {
			op.PathError = fmt.Sprintf("operator-controller keeps %s: the extension's spec selects no other bundle", op.From)
		}
		return
	}
	h := Hop{From: op.From, To: res.Bundle.Name, Via: extensionVia(pkg, channels, op.From, installedVersion, res.Bundle.Name, self), Version: res.Bundle.Version, MinKubeVersion: res.Bundle.MinKubeVersion}
	req.checkKube(op, &h)
	op.Path = append(op.Path, h)
	if res.Bundle.Name != op.To {
		op.PathError = fmt.Sprintf("operator-controller installs %s, not %s", res.Bundle.Name, op.To)
	}
}

// v0Steps names the versions OLM v0 goes through from the installed bundle to op.To: with OLM
// v1 they are the versions to name one after the other.
func v0Steps(pkg *catalog.Package, op *Operator, installedVersion string) string {
	path, err := upgradepath.FindFrom(pkg, op.Channel, upgradepath.Installed{CSV: op.From, Version: installedVersion}, op.To)
	if err != nil || len(path.Hops) < 2 {
		return ""
	}
	return fmt.Sprintf(" (OLM v0 goes through %s: name each version in turn, or set upgradeConstraintPolicy SelfCertified)", strings.Join(path.Versions(), ", then "))
}

// extensionVia names the edge operator-controller follows from the installed bundle to to:
// the entry's replaces, skips or skipRange in one of channels, else SelfCertified.
func extensionVia(pkg *catalog.Package, channels []string, from, fromVersion, to string, self bool) string {
	v, verr := semver.Parse(fromVersion)
	for _, cn := range channels {
		ch, ok := pkg.Channels[cn]
		if !ok {
			continue
		}
		for _, e := range ch.Entries {
			if e.Name != to {
				continue
			}
			switch {
			case e.Replaces == from:
				return "replaces"
			case slices.Contains(e.Skips, from):
				return "skips"
			case e.SkipRange != "" && verr == nil:
				if r, err := semver.ParseRange(e.SkipRange); err == nil && r(v) {
					return "skipRange"
				}
			}
		}
	}
	if self {
		return "SelfCertified"
	}
	return "successor"
}

// renderedExtensionCatalog is spec.source.catalog of the rendered ClusterExtension name, nil
// when the render wrote none.
func (req Request) renderedExtensionCatalog(name string) map[string]any {
	for _, o := range req.Rendered {
		if str(o, "apiVersion") == olmV1APIVersion && str(o, "kind") == kindExtension && str(o, "metadata", "name") == name {
			spec, _ := manifest.Get(o, "spec", "source", "catalog").(map[string]any)
			return spec
		}
	}
	return nil
}

// sliceOf is v as a list, nil when it is not one.
func sliceOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// extensionChannel is the one channel a ClusterExtension follows, "" when it names none or
// several.
func extensionChannel(ext map[string]any) string {
	channels, _ := manifest.Get(ext, "spec", "source", "catalog", "channels").([]any)
	if len(channels) != 1 {
		return ""
	}
	ch, _ := channels[0].(string)
	return ch
}

// extensionRemovals are ODLM's ClusterExtensions in the cluster (the render labels those it
// writes) whose package no install has.
func (req Request) extensionRemovals(kept map[string]bool) ([]Operator, error) {
	exts, err := req.Cluster.List(olmV1APIVersion, kindExtension, "")
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return nil, fmt.Errorf("listing ClusterExtensions: %w", err)
	}
	var out []Operator
	for _, ext := range exts {
		pkg := str(ext, "spec", "source", "catalog", "packageName")
		labels, _ := manifest.Get(ext, "metadata", "labels").(map[string]any)
		if labels[odlmLabel] != "true" || kept[pkg] {
			continue
		}
		op := newOperator(str(ext, "spec", "namespace"), str(ext, "metadata", "name"), pkg, extensionChannel(ext))
		op.Action = ActionRemove
		op.From = str(ext, "status", "install", "bundle", "name")
		op.FromChannel = op.Channel
		out = append(out, op)
	}
	return out, nil
}
