package render

import (
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Install is an operator the render installs through OLM: a Subscription its output holds
// (created, or updated under ODLM's label), the bundle that Subscription installs once
// converged, and the catalog it comes from. Whatever the output format (OLM v0, OLM v1, or the
// operator itself with OLMNone), these are what a cluster pulls.
type Install struct {
	// Namespace and Name are the Subscription's (an OLM v1 ClusterExtension has its name)
	Namespace, Name string
	// Package and Channel are what it installs from ("" channel: the package's default)
	Package, Channel string
	// Bundle is the bundle installed once converged (the channel head, or the pin); nil when
	// the catalog does not know it
	Bundle *catalog.Bundle
	// InstalledCSV is the CSV the Subscription has installed already (status.installedCSV
	// of the Subscription found in the inputs, a snapshot or the live cluster); "" when none.
	// OLM updates from it to Bundle, one InstallPlan per hop.
	InstalledCSV string
	// StartingCSV is the Subscription's spec.startingCSV when nothing is installed yet and it
	// names another CSV than Bundle's: OLM installs it first, then updates from it to Bundle,
	// one InstallPlan per hop (each needing approval under Manual approval).
	StartingCSV string
	// CatalogSource is the "namespace/name" of the CatalogSource the Subscription names, and
	// CatalogImage its image (olm.catalogImageTemplate resolved for Options.KubeVersion, else
	// spec.image); "" when that CatalogSource is not among the inputs, snapshots or cluster
	CatalogSource, CatalogImage string
	// About and Field anchor diagnostics about the install: the registry entry that asks for it
	About *manifest.Object
	Field string
}

// KnownCatalogSource is a CatalogSource the render knows: its namespace, name,
// spec.priority (0 when only a named catalog gives it) and image (as Install.CatalogImage;
// "" when only a named catalog gives it).
type KnownCatalogSource struct {
	Namespace, Name string
	Priority        int
	Image           string
}

// Key is "namespace/name".
func (k KnownCatalogSource) Key() string { return k.Namespace + "/" + k.Name }

// knownCatalogSourceList lists the CatalogSources the round knows (olmInstall.knownSources).
func (r *run) knownCatalogSourceList() []KnownCatalogSource {
	images := r.catalogImages()
	var out []KnownCatalogSource
	for _, cs := range r.olm.knownSources() {
		k := cs.namespace + "/" + cs.name
		out = append(out, KnownCatalogSource{Namespace: cs.namespace, Name: cs.name, Priority: cs.priority, Image: images[k]})
	}
	return out
}

// catalogImages are the images of the CatalogSource objects the round knows, by
// "namespace/name": olm.catalogImageTemplate resolved for Options.KubeVersion, else spec.image.
func (r *run) catalogImages() map[string]string {
	images := map[string]string{}
	for _, cs := range r.olm.catalogSources() {
		obj := manifest.New(cs.obj)
		image := obj.String("spec", "image")
		if tmpl := obj.Annotations()[catalogImageTemplateAnnotation]; tmpl != "" {
			if resolved, ok := resolveImageTemplate(tmpl, r.opts.KubeVersion); ok {
				image = resolved
			}
		}
		images[cs.namespace+"/"+cs.name] = image
	}
	return images
}

// installList lists what the settled round installs, in the order of its Subscriptions.
func (r *run) installList() []Install {
	images := r.catalogImages()
	var out []Install
	for _, p := range r.operators.subscriptions {
		if p.obj == nil {
			continue
		}
		sub := p.obj
		in := Install{Namespace: sub.Namespace(), Name: sub.Name(), Package: sub.String("spec", "name"), Channel: sub.String("spec", "channel"),
			CatalogSource: sub.String("spec", "sourceNamespace") + "/" + sub.String("spec", "source")}
		in.CatalogImage = images[in.CatalogSource]
		in.About, in.Field = p.about()
		for _, ib := range r.kinds.subscribed {
			if ib.plan == p {
				in.Bundle = ib.bundle
			}
		}
		if p.existing != nil {
			in.InstalledCSV = p.existing.String("status", "installedCSV")
		}
		if start := sub.String("spec", "startingCSV"); in.InstalledCSV == "" && start != "" && (in.Bundle == nil || start != csvName(in.Bundle)) {
			in.StartingCSV = start
		}
		out = append(out, in)
	}
	return out
}
