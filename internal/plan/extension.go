package plan

import (
	"errors"
	"fmt"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
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
func (req Request) installedExtension(in render.Install) (bundle, channel string, found bool, err error) {
	ext, found, err := req.Cluster.Get(olmV1APIVersion, kindExtension, "", in.Name)
	if errors.Is(err, cluster.ErrNotServed) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("reading ClusterExtension %s: %w", in.Name, err)
	}
	if !found || str(ext, "spec", "source", "catalog", "packageName") != in.Package {
		return "", "", false, nil
	}
	return str(ext, "status", "install", "bundle", "name"), extensionChannel(ext), true, nil
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
