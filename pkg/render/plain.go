package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/bundleinstall"
	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/suggest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// plainInstall turns the OLM v0 install objects of a round into the operators themselves
// (--olm none): each Subscription the render creates becomes what OLM's install strategy
// creates from the bundle it installs (internal/bundleinstall), in the Subscription's
// namespace, watching what the namespace's OperatorGroup targets, with the Subscription's
// config applied. OperatorGroups and CatalogSources, which only OLM reads, are left out.
type plainInstall struct {
	opts           Options
	deps           *olmInstall // what OLM v0 would add (dependency advice)
	subscriptions  []*subscriptionPlan
	operatorGroups []*manifest.Object
	subscribed     []subscribedBundle
	existing       func(apiVersion, kind, namespace string) []*manifest.Object
	servedKindOf   func(apiVersion, kind string) *servedKind
	facts          factBook
	add            func(diag.Result)
}

func (r *run) plainInstall() *plainInstall {
	return &plainInstall{
		opts: r.opts, deps: r.olm, subscriptions: r.operators.subscriptions, operatorGroups: r.operators.operatorGroups, subscribed: r.kinds.subscribed,
		existing: r.existing, servedKindOf: r.kinds.servedKindOf, facts: r.facts, add: r.add,
	}
}

// toPlain returns the objects to emit and, for ordering, each Subscription's Deployments.
func (pi *plainInstall) toPlain(generated []*manifest.Object) ([]*manifest.Object, map[*manifest.Object][]*manifest.Object) {
	planOf, updated := plansByObject(pi.subscriptions)
	convertedTo := map[*manifest.Object][]*manifest.Object{}
	written := map[manifest.Key]*manifest.Object{}
	writers := map[manifest.Key]*subscriptionPlan{}
	var out []*manifest.Object
	dropped := map[string]int{}
	for _, o := range generated {
		p, created := planOf[o]
		switch {
		case created:
			objs := pi.install(p)
			for _, obj := range objs {
				if pi.duplicate(p, written, writers, obj) {
					continue
				}
				out = append(out, obj)
				if pi.facts.is(obj, workloadObject) && obj.Kind() == "Deployment" {
					convertedTo[o] = append(convertedTo[o], obj)
				}
			}
		case o.Group() == olmGroup && o.Kind() == "Subscription":
			pi.add(keptV0Subscription(updated[o], o, "the operator's own install", "an install without OLM"))
			out = append(out, o)
		case o.Group() == olmGroup && (o.Kind() == "OperatorGroup" || o.Kind() == "CatalogSource"):
			dropped[o.Kind()]++
		default:
			out = append(out, o)
		}
	}
	for _, kind := range []string{"OperatorGroup", "CatalogSource"} {
		if n := dropped[kind]; n > 0 {
			pi.add(diag.Infof(nil, "", "without OLM nothing reads %ss: the %d the render would write for OLM v0 are left out", kind, n))
		}
	}
	return out, convertedTo
}

// duplicate reports an object another operator's install already wrote: the same object is
// written once; a different one under the same name is an error naming both installs (each
// sync would rebind or rewrite the other's, each prune delete it).
func (pi *plainInstall) duplicate(p *subscriptionPlan, written map[manifest.Key]*manifest.Object, writers map[manifest.Key]*subscriptionPlan, obj *manifest.Object) bool {
	k := obj.Ref().Key()
	prev, ok := written[k]
	if !ok {
		written[k], writers[k] = obj, p
		return false
	}
	if !merge.Equal(prev.Map, obj.Map) {
		about, field := p.about()
		other := writers[k]
		pi.add(diag.Errorf(about, field, "installing package %s into namespace %s writes %s, which the install of package %s into namespace %s writes differently: both cannot hold",
			p.obj.String("spec", "name"), p.namespace, obj.Ref(), other.obj.String("spec", "name"), other.namespace))
	}
	return true
}

// sharedByName warns about the cluster-scoped objects of a bundle written under the bundle's
// own names (its webhook configurations, and the ClusterRoles, ClusterRoleBindings and
// PriorityClasses among its manifests; CRDs are meant to be shared): an install of the same
// bundle in another namespace, or by another render, writes the same object, and the two
// overwrite each other.
func (pi *plainInstall) sharedByName(p *subscriptionPlan, b *catalog.Bundle, objs []bundleinstall.Object) {
	named := map[string]bool{}
	for _, ref := range b.Contents.Objects {
		named[ref.Kind+"/"+ref.Name] = true
	}
	var shared []string
	for _, o := range objs {
		switch {
		case o.Namespace() != "" || o.Kind() == "CustomResourceDefinition":
		case o.Kind() == "ValidatingWebhookConfiguration" || o.Kind() == "MutatingWebhookConfiguration" || named[o.Kind()+"/"+o.Name()]:
			shared = append(shared, o.Kind()+" "+o.Name())
		}
	}
	if len(shared) == 0 {
		return
	}
	about, field := p.about()
	pi.add(diag.Warnf(about, field, "bundle %s writes cluster-scoped objects under its own names (%s): an install of the same bundle into another namespace, or by another render, writes the same objects, and each overwrites the other's (one install of this bundle per cluster)",
		b.Name, strings.Join(shared, ", ")))
}

// install is what one Subscription becomes, or nothing after an error.
func (pi *plainInstall) install(p *subscriptionPlan) []*manifest.Object {
	sub := p.obj
	about, field := p.about()
	b := bundleInstalledBy(pi.subscribed, p)
	if b == nil {
		pi.add(diag.Errorf(about, field, "package %s: the catalog does not say which bundle Subscription %s/%s installs, so it cannot be installed without OLM", sub.String("spec", "name"), sub.Namespace(), sub.Name()))
		return nil
	}
	if b.Contents == nil || b.Contents.Install == nil {
		pi.add(diag.Errorf(about, field, "installing bundle %s without OLM needs its contents (CSV install strategy, CRDs, manifests): write a catalog snapshot that holds them (odlm-render catalog extract --bundle-contents pull), or give a catalog whose bundles carry olm.bundle.object", b.Name))
		return nil
	}
	if !pi.dependenciesMet(p, b) {
		return nil
	}
	config, _ := manifest.Get(sub.Map, "spec", "config").(map[string]any)
	if config["selector"] != nil {
		pi.add(diag.Warnf(about, field, "Subscription %s/%s: OLM does not apply a subscription config's selector to the operator's Deployments, and neither does the render", sub.Namespace(), sub.Name()))
	}
	res, err := bundleinstall.Render(bundleinstall.Bundle{Name: b.Name, InstallModes: pi.installModes(p, b), Contents: b.Contents},
		bundleinstall.Options{InstallNamespace: sub.Namespace(), TargetNamespaces: pi.targetsOf(sub.Namespace()), Config: config, Certs: bundleinstall.CertProvider(pi.opts.WebhookCerts)})
	if err != nil {
		for _, msg := range strings.Split(err.Error(), "\n") {
			pi.add(diag.Errorf(about, field, "cannot install without OLM: %s", msg))
		}
		return nil
	}
	for _, w := range res.Warnings {
		pi.add(diag.Warnf(about, field, "%s", w))
	}
	pi.sharedByName(p, b, res.Objects)
	out := make([]*manifest.Object, 0, len(res.Objects))
	for _, o := range res.Objects {
		o.Source = sub.Source
		pi.checkCustomResource(p, b, o.Object)
		pi.checkDefinition(p, b, o.Object)
		if o.Role == bundleinstall.Workload {
			pi.facts.of(o.Object).roles |= workloadObject
		} else {
			pi.facts.of(o.Object).roles |= installerObject
		}
		out = append(out, o.Object)
	}
	return out
}

// targetsOf are the namespaces the OperatorGroup of a namespace targets, as OLM resolves
// them: its targetNamespaces, [""] (all) when it has neither those nor a selector, and none
// for a selector (only OLM can resolve it).
func (pi *plainInstall) targetsOf(namespace string) []string {
	groups := slices.Clone(pi.operatorGroups)
	groups = append(groups, pi.existing(operatorGroupAPIVersion, "OperatorGroup", namespace)...)
	for _, og := range groups {
		if og.Namespace() != namespace {
			continue
		}
		if manifest.Get(og.Map, "spec", "selector") != nil {
			return nil
		}
		var targets []string
		for _, t := range list(manifest.Get(og.Map, "spec", "targetNamespaces")) {
			if s, ok := t.(string); ok {
				targets = append(targets, s)
			}
		}
		if len(targets) == 0 {
			return []string{""}
		}
		return targets
	}
	return []string{""}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// dependenciesMet reports a bundle whose dependencies the operators the render installs
// satisfy: OLM resolves them from the catalog, a plain install cannot.
func (pi *plainInstall) dependenciesMet(p *subscriptionPlan, b *catalog.Bundle) bool {
	about, field := p.about()
	var why []string
	for _, req := range pi.deps.requirementsOf(p, b) {
		if !pi.provides(req) {
			why = append(why, fmt.Sprintf("%s (%s: %s)", req.What, req.Property, pi.deps.requirementAdvice(p, req)))
		}
	}
	if len(why) == 0 {
		return true
	}
	pi.add(diag.Errorf(about, field, "bundle %s has dependencies no operator the render installs satisfies, and without OLM nothing resolves them: %s (add the operators that provide them to the requests, or install with OLM)", b.Name, strings.Join(why, "; ")))
	return false
}

// provides says whether an operator the render installs satisfies the requirement.
func (pi *plainInstall) provides(req catalog.Requirement) bool {
	for _, ib := range pi.subscribed {
		if ib.bundle != nil && req.Match(ib.bundle) {
			return true
		}
	}
	return false
}

// checkCustomResource runs the API server's checks on a custom resource among a bundle's
// manifests, against its CRD (as schemas.go does for operands): fields the CRD does not know
// are pruned with a warning, values it refuses are errors. OLM creates such objects without
// strict field validation, so the pruned fields are what OLM's install drops too.
func (pi *plainInstall) checkCustomResource(p *subscriptionPlan, b *catalog.Bundle, o *manifest.Object) {
	s := pi.servedKindOf(o.APIVersion(), o.Kind())
	if s == nil || s.def == nil {
		return
	}
	about, field := p.about()
	check := s.def.Check
	if pi.opts.CRDDefaults {
		check = s.def.CheckDefaulted
	}
	res, err := check(o.Map)
	if err != nil {
		pi.add(diag.Warnf(about, field, "bundle %s: %s is not validated: CRD %s: %v", b.Name, o.Ref(), s.def.Name, err))
		return
	}
	for _, path := range res.Pruned {
		pi.add(diag.Warnf(about, field, "bundle %s: manifest %s: field %s is not in CRD %s: the API server drops it, so it is left out%s",
			b.Name, o.Ref(), path, s.def.Name, suggest.DidYouMean(lastField(path), s.def.FieldsAt(o.APIVersion(), path))))
	}
	o.Map = res.Object
	for _, prob := range res.Problems {
		pi.add(diag.Errorf(about, field, "bundle %s: manifest %s: %s: %s (CRD %s): the API server refuses it", b.Name, o.Ref(), prob.Field, prob.Reason, s.def.Name))
	}
}

// checkDefinition reads a CRD the install writes as the API server's CRD code reads it
// (structural schema, versions, defaults, the CEL rules' compilation and estimated cost):
// one it cannot read is refused by the server. The
// server's other checks of a CRD object (internal/crd/definition) are not linked into the
// engine, which the KRM function starts for every render; a test creates the real bundles'
// CRDs on a real kube-apiserver.
func (pi *plainInstall) checkDefinition(p *subscriptionPlan, b *catalog.Bundle, o *manifest.Object) {
	if o.Kind() != "CustomResourceDefinition" || o.Group() != "apiextensions.k8s.io" {
		return
	}
	def, err := crd.Parse(o.Map)
	if err == nil {
		err = def.CheckRules()
	}
	if err != nil {
		about, field := p.about()
		pi.add(diag.Errorf(about, field, "bundle %s: CRD %s: %v: the API server refuses it", b.Name, o.Name(), err))
	}
}

// installModes are the install modes OLM checks the OperatorGroup against: the CSV's own
// (from the bundle's contents), else the catalog's copy of them. A catalog that disagrees
// with its CSV is a warning.
func (pi *plainInstall) installModes(p *subscriptionPlan, b *catalog.Bundle) []catalog.InstallMode {
	csv := b.Contents.Install.InstallModes
	if len(csv) == 0 {
		return b.InstallModes
	}
	if len(b.InstallModes) > 0 && !slices.Equal(supportedModes(csv), supportedModes(b.InstallModes)) {
		about, field := p.about()
		pi.add(diag.Warnf(about, field, "bundle %s: the catalog gives install modes %v, its CSV %v: OLM checks the CSV's", b.Name, supportedModes(b.InstallModes), supportedModes(csv)))
	}
	return csv
}

// supportedModes are the supported install modes' names, sorted.
func supportedModes(modes []catalog.InstallMode) []string {
	var out []string
	for _, m := range modes {
		if m.Supported {
			out = append(out, string(m.Type))
		}
	}
	slices.Sort(out)
	return out
}
