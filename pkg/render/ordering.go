package render

import (
	"sort"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

const (
	syncWaveAnnotation    = "argocd.argoproj.io/sync-wave"
	syncOptionsAnnotation = "argocd.argoproj.io/sync-options"
	skipDryRun            = "SkipDryRunOnMissingResource=true"
	dependsOnAnnotation   = "config.kubernetes.io/depends-on"
)

// Sync waves: CatalogSource < OperatorGroup < Subscription < operands and resources <
// bind-info copies.
const (
	waveCatalogSource = iota + 1
	waveOperatorGroup
	waveSubscription
	waveOperand
	waveBindInfo
)

// orderer writes the ordering annotations of a settled render: what it needs to know of the
// render is what each object is and where it comes from (its facts) and which kinds arrive
// with an operator.
type orderer struct {
	style         OrderingMode
	facts         factBook
	convertedTo   map[*manifest.Object][]*manifest.Object
	providedKinds map[manifest.GroupKind]bool
	servedKindOf  func(apiVersion, kind string) *servedKind
	// definedHere are the kinds whose CRD is among the objects being ordered:
	// Argo CD creates such a CRD first and skips the dry run of its resources by itself
	definedHere map[manifest.GroupKind]bool
}

func (r *run) orderer() *orderer {
	return &orderer{
		style:         r.opts.Ordering,
		facts:         r.facts,
		convertedTo:   r.operators.convertedTo,
		providedKinds: r.kinds.providedKinds,
		servedKindOf:  r.kinds.servedKindOf,
	}
}

// order decorates the generated objects for the ordering style; inputs that pass through
// keep whatever ordering their author gave them.
func (ord *orderer) order(objs []*manifest.Object, generated map[*manifest.Object]bool) {
	ord.definedHere = map[manifest.GroupKind]bool{}
	for _, o := range objs {
		if o.Kind() == "CustomResourceDefinition" && o.Group() == "apiextensions.k8s.io" {
			group, _ := manifest.Get(o.Map, "spec", "group").(string)
			kind, _ := manifest.Get(o.Map, "spec", "names", "kind").(string)
			ord.definedHere[manifest.GroupKind{Group: group, Kind: kind}] = true
		}
	}
	switch ord.style {
	case OrderingArgoCD:
		for _, o := range objs {
			if generated[o] {
				ord.argoCDWave(o)
			}
		}
	case OrderingKpt:
		for _, o := range objs {
			if generated[o] {
				ord.kptDependsOn(o, objs)
			}
		}
	}
}

func (ord *orderer) waveOf(o *manifest.Object) int {
	switch {
	case o.Group() == olmGroup && o.Kind() == "CatalogSource":
		return waveCatalogSource
	case o.Group() == olmGroup && o.Kind() == "OperatorGroup", ord.facts.is(o, installerObject):
		return waveOperatorGroup
	case o.Group() == olmGroup && o.Kind() == "Subscription",
		o.Group() == olmV1Group && o.Kind() == kindClusterExtension, ord.facts.is(o, workloadObject):
		return waveSubscription
	case ord.facts.is(o, bindInfoCopy):
		return waveBindInfo
	default:
		return waveOperand
	}
}

func (ord *orderer) argoCDWave(o *manifest.Object) {
	o.SetMetadataString("annotations", syncWaveAnnotation, strconv.Itoa(ord.waveOf(o)))
	if ord.waveOf(o) == waveOperand && ord.crdFromOperator(o) {
		opts := o.Annotations()[syncOptionsAnnotation]
		if !strings.Contains(opts, skipDryRun) {
			if opts != "" {
				opts += ","
			}
			o.SetMetadataString("annotations", syncOptionsAnnotation, opts+skipDryRun)
		}
	}
}

// crdFromOperator reports an object whose kind a bundle being installed provides (its CRD
// does not exist until the operator is installed, so Argo CD's dry run would fail), or, when
// the catalog does not say, any operand CR of a Subscription the render creates; not when
// the CRD is in the output itself (an operator installed without OLM).
func (ord *orderer) crdFromOperator(o *manifest.Object) bool {
	if ord.definedHere[manifest.GroupKindOf(o)] {
		return false
	}
	if s := ord.servedKindOf(o.APIVersion(), o.Kind()); s != nil {
		// known: exactly the kinds whose CRD arrives with an operator being installed
		return s.fromBundle
	}
	if ord.providedKinds[manifest.GroupKindOf(o)] {
		return true
	}
	if _, ok := ord.facts.operatorOf(o); !ok {
		return false
	}
	switch o.Group() {
	case "", "apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io", "policy", "route.openshift.io":
		return false // built-in kinds: their CRDs, if any, do not come from the operator
	}
	return true
}

// kptDependsOn lists what an object waits for: a Subscription its OperatorGroup and
// CatalogSource, an operand the Subscription of its operator.
func (ord *orderer) kptDependsOn(o *manifest.Object, objs []*manifest.Object) {
	var deps []string
	switch ord.waveOf(o) {
	case waveSubscription:
		for _, d := range objs {
			switch {
			case d.Group() == olmGroup && d.Kind() == "OperatorGroup" && d.Namespace() == o.Namespace():
				deps = append(deps, dependsOnRef(d))
			case d.Group() == olmGroup && d.Kind() == "CatalogSource" &&
				d.Namespace() == o.String("spec", "sourceNamespace") && d.Name() == o.String("spec", "source"):
				deps = append(deps, dependsOnRef(d))
			case d.Group() == olmV1Group && d.Kind() == kindClusterCatalog && o.Kind() == kindClusterExtension &&
				d.Name() == o.String("spec", "source", "catalog", "selector", "matchLabels", clusterCatalogNameLabel):
				deps = append(deps, dependsOnRef(d))
			}
		}
	case waveOperand:
		if sub, ok := ord.facts.operatorOf(o); ok && sub.obj != nil {
			if installs, ok := ord.convertedTo[sub.obj]; ok {
				for _, d := range installs {
					deps = append(deps, dependsOnRef(d))
				}
			} else {
				deps = append(deps, dependsOnRef(sub.obj))
			}
		}
	}
	if len(deps) == 0 {
		return
	}
	sort.Strings(deps)
	o.SetMetadataString("annotations", dependsOnAnnotation, strings.Join(deps, ","))
}

// dependsOnRef is kpt's object reference: <group>/namespaces/<namespace>/<kind>/<name>, or
// <group>/<kind>/<name> for a cluster-scoped object (the core group is empty).
func dependsOnRef(o *manifest.Object) string {
	if o.Namespace() == "" {
		return o.Group() + "/" + o.Kind() + "/" + o.Name()
	}
	return o.Group() + "/namespaces/" + o.Namespace() + "/" + o.Kind() + "/" + o.Name()
}
