package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// trackerInstaller is the installer of ODLM's no-OLM controller: a tracking ConfigMap per
// operator instead of a Subscription, and the operator Deployment as the source of
// alm-examples (docs/semantics.md, The no-OLM variant).
type trackerInstaller struct{ r *run }

// plan plans a tracking ConfigMap per operator the requests use.
func (tk *trackerInstaller) plan() []*subscriptionPlan {
	return planTrackers(tk.r.inputs.allWants(), tk.findTracker)
}

// build writes the planned tracking ConfigMaps.
func (tk *trackerInstaller) build(plans []*subscriptionPlan) { tk.buildTrackers(plans) }

func (*trackerInstaller) afterOperands() {}

// The no-OLM mode (ODLM with NO_OLM=true, see docs/semantics.md, The no-OLM variant): no Subscriptions, OperatorGroups
// or catalogs; ODLM tracks each operator with a ConfigMap and reads alm-examples from the
// operator's Deployment.

const (
	trackerLabel             = "operator.ibm.com/operand-request-tracker"
	trackerPackageAnnotation = "operator.ibm.com.common-service/packageName"
	legacyPackageAnnotation  = "packageName"
	deploymentAPIVersion     = "apps/v1"
)

// trackerName is the tracking ConfigMap of a package.
func trackerName(pkg string) string { return "opreq-" + pkg }

// findTracker is ODLM's search for an existing tracking ConfigMap: in the install and
// registry namespaces, one annotated with the package name (or, as older ODLM versions made
// them, labelled opreq-control with a packageName annotation). More than one is an error.
func (tk *trackerInstaller) findTracker(w *want) (*manifest.Object, bool) {
	pkg := w.entry.PackageName
	return tk.r.findOne(w, "v1", "ConfigMap", "tracking ConfigMaps", func(o *manifest.Object) bool {
		a := o.Annotations()
		_, legacy := o.Labels()[naming.ControlLabel]
		return a[trackerPackageAnnotation] == pkg || (legacy && a[legacyPackageAnnotation] == pkg)
	})
}

// planTrackers is planSubscriptions for the no-OLM mode: one tracking ConfigMap per package
// and install namespace, for every in-scope want that is not no-op or userManaged; find is
// ODLM's search for an existing one (false when the search fails the request).
func planTrackers(wants []*want, find func(*want) (*manifest.Object, bool)) []*subscriptionPlan {
	plans := &subscriptionPlans{byKey: map[key]*subscriptionPlan{}}
	for _, w := range wants {
		if !w.inScope || w.entry == nil || w.entry.UserManaged || w.entry.InstallMode == api.InstallModeNoOp {
			continue
		}
		w.channel = w.entry.Channel
		existing, ok := find(w)
		if !ok {
			continue
		}
		k := key{w.entry.installNamespace(), trackerName(w.entry.PackageName)}
		if existing != nil {
			k = key{existing.Namespace(), existing.Name()}
		}
		plans.planFor(k, existing).contribute(w)
	}
	return plans.list
}

// buildTrackers writes the tracking ConfigMaps: ODLM's labels, the Subscription-like
// annotations of every request (the registry channel, no channel logic), and the package.
func (tk *trackerInstaller) buildTrackers(plans []*subscriptionPlan) {
	for _, p := range plans {
		var obj *manifest.Object
		if p.existing != nil {
			obj = tk.r.updatedCopy(p.existing)
			tk.r.updated(p.existing, obj)
		} else {
			obj = manifest.New(map[string]any{
				"apiVersion": "v1",
				"kind":       "ConfigMap",
				"metadata": map[string]any{
					"name":      p.name,
					"namespace": p.namespace,
					"labels": map[string]any{
						naming.ControlLabel:       "true",
						naming.WatchedByODLMLabel: "true",
						trackerLabel:              "true",
					},
				},
				"data": map[string]any{},
			})
		}
		tk.r.annotate(obj, p)
		obj.SetMetadataString("annotations", trackerPackageAnnotation, p.contributions[0].entry.PackageName)
		p.obj = tk.r.madeByController(p, obj)
	}
}

// operatorDeployment is where the no-OLM mode reads alm-examples: the first Deployment (by
// name) in the entry's namespace whose packageName annotation contains the package name,
// from the inputs or a snapshot. nil, with a warning, when there is none (ODLM waits).
func (tk *trackerInstaller) operatorDeployment(w *want) *catalog.Bundle {
	e := w.entry
	var candidates []*manifest.Object
	for _, o := range tk.r.existing(deploymentAPIVersion, "Deployment", e.Namespace) {
		if o.Namespace() == e.Namespace {
			candidates = append(candidates, o)
		}
	}
	sort.SliceStable(candidates, func(i, j int) bool { return candidates[i].Name() < candidates[j].Name() })
	for _, d := range candidates {
		if strings.Contains(d.Annotations()[legacyPackageAnnotation], e.PackageName) {
			return &catalog.Bundle{
				Name:        fmt.Sprintf("Deployment %s/%s", d.Namespace(), d.Name()),
				Package:     e.PackageName,
				Source:      catalog.Source{File: d.Source.File, Index: d.Source.Index, Line: d.Source.Line},
				Annotations: map[string]string{"alm-examples": d.Annotations()["alm-examples"]},
			}
		}
	}
	tk.r.add(diag.Warnf(e.registry.obj, e.field("packageName"), "no Deployment in namespace %s with a packageName annotation containing %q among the inputs or snapshots: ODLM (no-OLM mode) waits for the operator, so no operand CRs of %q are rendered", e.Namespace, e.PackageName, e.Name))
	return nil
}
