package mirror

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Dependency is an install OLM v0 adds to a namespace because a bundle there requires it
// (olm.package.required, olm.gvk.required, olm.constraint).
type Dependency struct {
	render.Install
	// Of names the installs of the namespace whose bundles OLM resolved it for
	// ("namespace/name", joined with ", ").
	Of string
}

// Dependencies asks OLM v0's own resolver (internal/olmresolve: its step resolver, each
// CatalogSource the installs name serving cat as opm serve serves it) what it installs in
// each namespace of installs on a cluster that has none of them yet: the installs whose
// package no Subscription of the namespace names are the dependencies, each from the
// CatalogSource OLM chose, with the Subscription name OLM gives it. A namespace OLM cannot
// resolve is a warning on each of its installs, naming the requirements no catalog offers
// (OLM's own conflict text varies from run to run).
func Dependencies(installs []render.Install, cat *catalog.Catalog) ([]Dependency, []Warning, error) {
	byNamespace := map[string][]render.Install{}
	var namespaces []string
	for _, in := range installs {
		if in.Bundle == nil || !strings.Contains(in.CatalogSource, "/") {
			continue
		}
		if _, ok := byNamespace[in.Namespace]; !ok {
			namespaces = append(namespaces, in.Namespace)
		}
		byNamespace[in.Namespace] = append(byNamespace[in.Namespace], in)
	}
	slices.Sort(namespaces)
	if len(namespaces) == 0 {
		return nil, nil, nil
	}
	fbc, err := olmresolve.FromCatalog(cat)
	if err != nil {
		return nil, nil, err
	}
	var deps []Dependency
	var warnings []Warning
	for _, ns := range namespaces {
		nsInstalls := byNamespace[ns]
		res, err := resolveNamespace(ns, nsInstalls, fbc)
		if err != nil {
			kind, _, _ := strings.Cut(err.Error(), ":")
			msg := fmt.Sprintf("OLM's own resolver cannot resolve namespace %s (%s): nothing installs there, so a mirror of it is of no use", ns, kind)
			if why := missingRequirements(nsInstalls, cat); why != "" {
				msg += "; " + why
			}
			for _, in := range nsInstalls {
				warnings = append(warnings, Warning{About: in.About, Field: in.Field, Msg: msg})
			}
			continue
		}
		deps = append(deps, dependenciesOf(ns, nsInstalls, res, cat)...)
	}
	return deps, warnings, nil
}

// resolveNamespace is OLM's first InstallPlan for a namespace holding the installs'
// Subscriptions (each pinned to the bundle the render installs, Automatic approval) and an
// OperatorGroup.
func resolveNamespace(ns string, installs []render.Install, fbc fs.FS) (olmresolve.Resolution, error) {
	cluster := olmresolve.Cluster{OperatorGroups: []*operatorsv1.OperatorGroup{{ObjectMeta: metav1.ObjectMeta{Name: "olmresolve-stand-in", Namespace: ns}}}}
	keys := map[string]bool{}
	for _, in := range installs {
		srcNS, src, _ := strings.Cut(in.CatalogSource, "/")
		keys[in.CatalogSource] = true
		cluster.Subscriptions = append(cluster.Subscriptions, &v1alpha1.Subscription{
			ObjectMeta: metav1.ObjectMeta{Name: in.Name, Namespace: ns},
			Spec: &v1alpha1.SubscriptionSpec{Package: in.Package, Channel: in.Channel, CatalogSource: src, CatalogSourceNamespace: srcNS,
				StartingCSV: in.Bundle.Name, InstallPlanApproval: v1alpha1.ApprovalAutomatic},
		})
	}
	r, err := olmresolve.ServeAs(context.Background(), fbc, slices.Sorted(maps.Keys(keys)), olmresolve.OpenShiftGlobalNamespace)
	if err != nil {
		return olmresolve.Resolution{}, err
	}
	defer r.Close()
	return r.Resolve(cluster, ns)
}

// dependenciesOf turns the installs of OLM's resolution that no Subscription of the
// namespace asked for into Dependencies.
func dependenciesOf(ns string, installs []render.Install, res olmresolve.Resolution, cat *catalog.Catalog) []Dependency {
	subscribed := map[string]bool{}
	images := map[string]string{}
	var of []string
	for _, in := range installs {
		subscribed[in.Package] = true
		images[in.CatalogSource] = in.CatalogImage
		of = append(of, in.Namespace+"/"+in.Name)
	}
	created := map[string]*v1alpha1.Subscription{}
	for _, s := range res.Created {
		created[s.Status.CurrentCSV] = s
	}
	var out []Dependency
	for _, in := range res.Installs {
		pkgName := in.Package()
		if subscribed[pkgName] {
			continue
		}
		d := Dependency{Install: render.Install{Namespace: ns, Package: pkgName, CatalogSource: in.CatalogSource,
			CatalogImage: images[in.CatalogSource], About: installs[0].About, Field: installs[0].Field}, Of: strings.Join(of, ", ")}
		if s := created[in.CSV]; s != nil && s.Spec != nil {
			d.Name, d.Channel = s.Name, s.Spec.Channel
		}
		if pkg, ok := cat.Package(pkgName); ok {
			d.Bundle = pkg.Bundles[in.CSV]
		}
		out = append(out, d)
	}
	return out
}

// missingRequirements names the requirements of the installs' bundles no package of cat
// offers, "" when none is missing.
func missingRequirements(installs []render.Install, cat *catalog.Catalog) string {
	var missing []string
	for _, in := range installs {
		if m := olmresolve.Unoffered(in.Bundle, cat); m != "" {
			missing = append(missing, m)
		}
	}
	return strings.Join(missing, "; ")
}
