package mirror

import (
	"context"
	"fmt"
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
func Dependencies(installs []render.Install, cats catalog.Set, known []render.KnownCatalogSource) ([]Dependency, []Warning, error) {
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
	priorities := map[string]int{}
	images := map[string]string{}
	var keys []string
	for _, k := range known {
		priorities[k.Key()] = k.Priority
		images[k.Key()] = k.Image
		keys = append(keys, k.Key())
	}
	for _, in := range installs {
		keys = append(keys, in.CatalogSource)
	}
	slices.Sort(keys)
	sources, err := olmresolve.SourcesOf(cats, slices.Compact(keys), priorities)
	if err != nil {
		return nil, nil, err
	}
	r, err := olmresolve.New(context.Background(), sources, olmresolve.OpenShiftGlobalNamespace)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	for _, in := range installs {
		ns, name, _ := strings.Cut(in.CatalogSource, "/")
		if err := r.Refused(ns, name); err != nil {
			return nil, nil, fmt.Errorf("catalog source %s: %w", in.CatalogSource, err)
		}
	}
	var deps []Dependency
	var warnings []Warning
	for _, ns := range namespaces {
		nsInstalls := byNamespace[ns]
		res, err := resolveNamespace(r, ns, nsInstalls)
		if err != nil {
			kind, _, _ := strings.Cut(err.Error(), ":")
			msg := fmt.Sprintf("OLM's own resolver cannot resolve namespace %s (%s): nothing installs there, so a mirror of it is of no use", ns, kind)
			if why := missingRequirements(nsInstalls, cats); why != "" {
				msg += "; " + why
			}
			for _, in := range nsInstalls {
				warnings = append(warnings, Warning{About: in.About, Field: in.Field, Msg: msg})
			}
			continue
		}
		deps = append(deps, dependenciesOf(ns, nsInstalls, res, cats, images)...)
	}
	return deps, warnings, nil
}

// resolveNamespace is OLM's first InstallPlan for a namespace holding the installs'
// Subscriptions (each pinned to the bundle the render installs, Automatic approval) and an
// OperatorGroup.
func resolveNamespace(r *olmresolve.Resolver, ns string, installs []render.Install) (olmresolve.Resolution, error) {
	cluster := olmresolve.Cluster{OperatorGroups: []*operatorsv1.OperatorGroup{{ObjectMeta: metav1.ObjectMeta{Name: "olmresolve-stand-in", Namespace: ns}}}}
	for _, in := range installs {
		srcNS, src, _ := strings.Cut(in.CatalogSource, "/")
		cluster.Subscriptions = append(cluster.Subscriptions, &v1alpha1.Subscription{
			ObjectMeta: metav1.ObjectMeta{Name: in.Name, Namespace: ns},
			Spec: &v1alpha1.SubscriptionSpec{Package: in.Package, Channel: in.Channel, CatalogSource: src, CatalogSourceNamespace: srcNS,
				StartingCSV: in.Bundle.Name, InstallPlanApproval: v1alpha1.ApprovalAutomatic},
		})
	}
	return r.Resolve(cluster, ns)
}

// dependenciesOf turns the installs of OLM's resolution that no Subscription of the
// namespace asked for into Dependencies.
func dependenciesOf(ns string, installs []render.Install, res olmresolve.Resolution, cats catalog.Set, images map[string]string) []Dependency {
	subscribed := map[string]bool{}
	var of []string
	for _, in := range installs {
		subscribed[in.Package] = true
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
		if c := cats.OfKey(in.CatalogSource); c == nil {
		} else if pkg, ok := c.Package(pkgName); ok {
			d.Bundle = pkg.Bundles[in.CSV]
		}
		out = append(out, d)
	}
	return out
}

// missingRequirements names the requirements of the installs' bundles no package of cat
// offers, "" when none is missing.
func missingRequirements(installs []render.Install, cats catalog.Set) string {
	var missing []string
	for _, in := range installs {
		if m := olmresolve.Unoffered(in.Bundle, cats.OfKey(in.CatalogSource)); m != "" {
			missing = append(missing, m)
		}
	}
	return strings.Join(missing, "; ")
}
