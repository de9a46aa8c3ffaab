package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/olm"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// olmV1 turns the OLM v0 install objects of a round into operator-controller's: a
// ClusterExtension per Subscription, the ClusterCatalogs, and with --olm-v1-service-account
// the installer's RBAC (olmv1rbac.go). It reads what the round planned and installed.
type olmV1 struct {
	opts           Options
	deps           *olmInstall // what OLM v0 would add (dependency advice)
	hasCatalog     bool
	subscriptions  []*subscriptionPlan
	operatorGroups []*manifest.Object
	subscribed     []subscribedBundle
	facts          factBook
	servedKindOf   func(apiVersion, kind string) *servedKind
	add            func(diag.Result)
	catalogs       catalog.Set
	// lookup reads an object of the inputs, snapshots or live cluster (run.lookup)
	lookup func(apiVersion, kind, namespace, name string) (map[string]any, bool, error)
	// watchWarned is set once the experimental watchNamespace field has been warned about
	watchWarned bool
}

func (r *run) olmV1() *olmV1 {
	return &olmV1{
		opts: r.opts, deps: r.olm, hasCatalog: !r.catalogs.Empty(), subscriptions: r.operators.subscriptions, operatorGroups: r.operators.operatorGroups,
		subscribed: r.kinds.subscribed, facts: r.facts, servedKindOf: r.kinds.servedKindOf, add: r.add, catalogs: r.catalogs,
		lookup: func(apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
			obj, _, found, err := r.lookup(apiVersion, kind, namespace, name)
			return obj, found, err
		},
	}
}

// OLM v1's API (operator-framework/operator-controller v1.11.0, whose CRDs are
// internal/platform/olmv1).
const (
	olmV1Group           = "olm.operatorframework.io"
	olmV1APIVersion      = olmV1Group + "/v1"
	kindClusterExtension = "ClusterExtension"
	kindClusterCatalog   = "ClusterCatalog"
	// clusterCatalogNameLabel is the label catalogd sets on every ClusterCatalog: its name
	clusterCatalogNameLabel = "olm.operatorframework.io/metadata.name"
)

// toOLMv1 turns the OLM v0 objects the render made into OLM v1's: each Subscription the
// render creates becomes a ClusterExtension (cluster-scoped, named after it) installing the
// same package from the same catalog (a ClusterCatalog named after the CatalogSource),
// channel and, with Pin, version; OperatorGroups have no OLM v1 counterpart and are left
// out; emitted CatalogSources become ClusterCatalogs. Operands, resources and bind-info
// copies do not depend on the OLM version. A bundle OLM v1 cannot install is an error
// naming why. It returns the objects to emit and, for ordering, each Subscription's
// ClusterExtension.
func (v *olmV1) toOLMv1(generated []*manifest.Object) ([]*manifest.Object, map[*manifest.Object][]*manifest.Object) {
	extensionOf := map[*manifest.Object][]*manifest.Object{}
	planOf, updated := plansByObject(v.subscriptions)
	names := map[string]*manifest.Object{}
	var out []*manifest.Object
	droppedGroups := 0
	for _, o := range generated {
		switch {
		case o.Group() == olmGroup && o.Kind() == "Subscription":
			p, ok := planOf[o]
			if !ok {
				v.add(keptV0Subscription(updated[o], o, "a ClusterExtension", "OLM v1"))
				out = append(out, o) // one ODLM updates in the cluster: it stays what it is
				continue
			}
			ce := v.clusterExtension(p)
			if ce == nil {
				continue
			}
			if prev, dup := names[ce.Name()]; dup {
				about, field := p.about()
				v.add(diag.Errorf(about, field, "ClusterExtension %s would install %s and %s: OLM v1's extensions are cluster-scoped, so Subscriptions of the same name in two namespaces cannot both become one",
					ce.Name(), describeExtension(prev), describeExtension(ce)))
				continue
			}
			names[ce.Name()] = ce
			extensionOf[o] = []*manifest.Object{ce}
			out = append(out, ce)
			for _, obj := range v.withInstaller(p, ce) {
				v.facts.of(obj).roles |= installerObject
				out = append(out, obj)
			}
		case o.Group() == olmGroup && o.Kind() == "OperatorGroup":
			droppedGroups++
		case o.Group() == olmGroup && o.Kind() == "CatalogSource":
			out = append(out, clusterCatalog(o))
		default:
			out = append(out, o)
		}
	}
	if droppedGroups > 0 {
		v.add(diag.Infof(nil, "", "OLM v1 has no OperatorGroups: the %d the render would write for OLM v0 are left out", droppedGroups))
	}
	return out, extensionOf
}

func describeExtension(ce *manifest.Object) string {
	return fmt.Sprintf("package %s into namespace %s", ce.String("spec", "source", "catalog", "packageName"), ce.String("spec", "namespace"))
}

// clusterExtension is the ClusterExtension of a Subscription the render creates, or nil
// after an error.
func (v *olmV1) clusterExtension(p *subscriptionPlan) *manifest.Object {
	sub := p.obj
	about, field := p.about()
	pkgName := sub.String("spec", "name")
	catalogSpec := map[string]any{"packageName": pkgName}
	if ch := v.channelOf(sub); ch != "" {
		catalogSpec["channels"] = []any{ch}
		if sub.String("spec", "channel") == "" {
			v.noteDefaultChannel(p, ch)
		}
	}
	if src := sub.String("spec", "source"); src != "" {
		catalogSpec["selector"] = map[string]any{"matchLabels": map[string]any{clusterCatalogNameLabel: src}}
	}
	if v.opts.OLMv1SelfCertified {
		catalogSpec["upgradeConstraintPolicy"] = "SelfCertified"
	}
	watch := ""
	if b := bundleInstalledBy(v.subscribed, p); b != nil {
		var ok bool
		if watch, ok = v.installableByOLMv1(p, b); !ok {
			return nil
		}
		v.pinVersion(p, b, catalogSpec)
	} else if v.hasCatalog {
		v.add(diag.Warnf(about, field, "package %s: the bundle OLM v1 would install is not known, so whether it can (AllNamespaces install mode, no dependencies) is not checked", pkgName))
	}
	if manifest.Get(sub.Map, "spec", "config") != nil && len(p.contributions) > 0 {
		e := p.contributions[0].entry
		v.add(diag.Warnf(e.registry.obj, e.field("subscriptionConfig"), "OLM v1 has no subscription config (environment, resources, node selector of the operator's pods): it is left out of ClusterExtension %s", sub.Name()))
	}
	ce := manifest.New(map[string]any{
		"apiVersion": olmV1APIVersion,
		"kind":       kindClusterExtension,
		"metadata": map[string]any{
			"name":   sub.Name(),
			"labels": map[string]any{naming.ControlLabel: "true"},
		},
		"spec": map[string]any{
			"namespace": sub.Namespace(),
			"source": map[string]any{
				"sourceType": "Catalog",
				"catalog":    catalogSpec,
			},
		},
	})
	if watch != "" {
		v.warnExperimentalWatch(p)
		manifest.EnsureMap(ce.Map, "spec")["config"] = map[string]any{
			"configType": "Inline",
			"inline":     map[string]any{"watchNamespace": watch},
		}
	}
	ce.Source = sub.Source
	return ce
}

// installableByOLMv1 reports whether OLM v1 can install a bundle for the plan, and the
// namespace the operator then watches ("" for all namespaces): registry+v1 bundles that
// declare no dependencies (operator-controller's documented limitations), for all
// namespaces, or with Options.OLMv1WatchNamespace (operator-controller's experimental
// SingleOwnNamespaceInstallSupport) for the one namespace the OLM v0 OperatorGroup targets,
// when the bundle supports that install mode.
func (v *olmV1) installableByOLMv1(p *subscriptionPlan, b *catalog.Bundle) (string, bool) {
	about, field := p.about()
	var why []string
	for _, req := range v.deps.requirementsOf(p, b) {
		why = append(why, fmt.Sprintf("it requires %s (%s): OLM v1 resolves no dependencies; %s", req.What, req.Property, v.deps.requirementAdvice(p, req)))
	}
	supports := func(t v1alpha1.InstallModeType) bool {
		return slices.ContainsFunc(b.InstallModes, func(m catalog.InstallMode) bool { return m.Type == t && m.Supported })
	}
	var targets []any
	if og := v.operatorGroupIn(p.namespace); og != nil {
		targets, _ = manifest.Get(og.Map, "spec", "targetNamespaces").([]any)
	}
	watch, mode := "", v1alpha1.InstallModeTypeAllNamespaces
	if len(targets) == 1 {
		watch, _ = targets[0].(string)
		mode = v1alpha1.InstallModeTypeSingleNamespace
		if watch == p.namespace {
			mode = v1alpha1.InstallModeTypeOwnNamespace
		}
	} else if len(targets) > 1 {
		mode = v1alpha1.InstallModeTypeMultiNamespace
	}
	all := supports(v1alpha1.InstallModeTypeAllNamespaces)
	switch {
	case len(why) > 0:
	case len(b.InstallModes) == 0:
		// the catalog does not say (as the OLM v0 install-mode check, nothing is refused)
		v.add(diag.Warnf(about, field, "the catalog gives no install modes for %s: OLM v1 installs it for all namespaces, which it refuses if the bundle does not support AllNamespaces", b.Name))
		return "", true
	case mode == v1alpha1.InstallModeTypeAllNamespaces && all:
		return "", true
	case v.opts.OLMv1WatchNamespace && (mode == v1alpha1.InstallModeTypeOwnNamespace || mode == v1alpha1.InstallModeTypeSingleNamespace) && supports(mode):
		return watch, true
	case all:
		v.add(diag.Warnf(about, field, "OLM v1 installs %s for all namespaces: the OLM v0 OperatorGroup would confine it to %v (%s)%s", b.Name, targets, mode, watchHint(v.opts.OLMv1WatchNamespace, mode)))
		return "", true
	case v.opts.OLMv1WatchNamespace:
		why = append(why, fmt.Sprintf("it supports neither the AllNamespaces install mode nor the %s mode the OLM v0 OperatorGroup asks for (targetNamespaces %v)", mode, targets))
	default:
		why = append(why, "it does not support the AllNamespaces install mode (OLM v1 installs SingleNamespace and OwnNamespace bundles only behind its experimental watchNamespace configuration: --olm-v1-watch-namespace)")
	}
	v.add(diag.Errorf(about, field, "OLM v1 cannot install bundle %s: %s", b.Name, strings.Join(why, "; ")))
	return "", false
}

func watchHint(enabled bool, mode v1alpha1.InstallModeType) string {
	switch {
	case mode == v1alpha1.InstallModeTypeMultiNamespace:
		return ": OLM v1 has no MultiNamespace install"
	case enabled:
		return ": the bundle does not support " + string(mode)
	}
	return ": --olm-v1-watch-namespace keeps it, where operator-controller's experimental watchNamespace configuration is enabled"
}

func (v *olmV1) operatorGroupIn(namespace string) *manifest.Object {
	for _, og := range v.operatorGroups {
		if og.Namespace() == namespace {
			return og
		}
	}
	return nil
}

// clusterCatalog is the ClusterCatalog serving what a CatalogSource serves: its image, named
// after it (Subscriptions' sources become ClusterExtensions' catalog selectors by that name).
func clusterCatalog(cs *manifest.Object) *manifest.Object {
	spec := map[string]any{
		"source": map[string]any{
			"type":  "Image",
			"image": map[string]any{"ref": cs.String("spec", "image")},
		},
	}
	// OLM v1 prefers the catalog of higher priority too (resolve/catalog.go#L170-L187)
	if typed, err := olm.CatalogSourceSpec(cs.Map["spec"]); err == nil && typed.Priority != 0 && typed.Priority == int(int32(typed.Priority)) {
		spec["priority"] = json.Number(strconv.Itoa(typed.Priority))
	}
	obj := manifest.New(map[string]any{
		"apiVersion": olmV1APIVersion,
		"kind":       kindClusterCatalog,
		"metadata":   map[string]any{"name": cs.Name()},
		"spec":       spec,
	})
	obj.Source = cs.Source
	return obj
}
