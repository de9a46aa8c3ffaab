package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/crdupgrade"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

const (
	crdAPIVersion = "apiextensions.k8s.io/v1"
	kindCRD       = "CustomResourceDefinition"
)

// contents fills op's CRD changes, stored-object problems and permission changes from the
// target bundle's contents, or notes that they are unknown.
func (req Request) contents(op *Operator, b *catalog.Bundle) error {
	if b.Contents == nil {
		op.Notes = append(op.Notes, "contents unknown: the catalog does not carry bundle "+b.Name+"'s CRDs and permissions")
		return nil
	}
	if err := req.crdSteps(op, b); err != nil {
		return err
	}
	if err := req.objects(op, b.Contents); err != nil {
		return err
	}
	return req.permissions(op, b.Contents)
}

// objects lists the bundle's other manifests, each to be created or updated.
func (req Request) objects(op *Operator, c *catalog.Contents) error {
	for _, ref := range c.Objects {
		_, found, err := req.Cluster.Get(ref.APIVersion, ref.Kind, op.Namespace, ref.Name)
		if err != nil {
			return fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
		}
		action := "create"
		if found {
			action = "update"
		}
		op.Objects = append(op.Objects, Object{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Action: action})
	}
	return nil
}

// crdSteps checks the CRDs OLM applies on the way to bundle b: those of each hop's bundle
// whose contents the catalog carries (with catalog.LoadOptions.AllContents), in the order of
// the path, then b's. Each CRD is compared with the one the cluster has by then (its own, or
// an earlier hop's), and the cluster's custom resources of it are validated against it; a note
// says how many hops' CRDs could not be checked.
func (req Request) crdSteps(op *Operator, b *catalog.Bundle) error {
	steps, unknown := req.stepBundles(op, b)
	if unknown > 0 {
		op.Notes = append(op.Notes, fmt.Sprintf("CRDs of %d of the %d hops' bundles unknown (the catalog does not carry their contents): the changes at those hops are not checked one by one, only as part of the next known one", unknown, len(op.Path)))
	}
	applied := map[string]map[string]any{} // by CRD name: the CRD an earlier step applied
	for _, step := range steps {
		for i := range step.Contents.CRDs {
			if err := req.crd(op, step, i, applied); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepBundles are the bundles of op's hops whose contents are known, in path order, ending
// with b; unknown counts the hops before b whose contents are not.
func (req Request) stepBundles(op *Operator, b *catalog.Bundle) (steps []*catalog.Bundle, unknown int) {
	pkg, _ := req.packageOf(op.catalogSource, op.Package)
	for _, h := range op.Path {
		if h.To == b.Name {
			continue
		}
		var hb *catalog.Bundle
		if pkg != nil {
			hb = pkg.Bundles[h.To]
		}
		if hb == nil || hb.Contents == nil {
			unknown++
			continue
		}
		steps = append(steps, hb)
	}
	return append(steps, b), unknown
}

// crd checks the i-th CRD of a step's bundle against the CRD the cluster has by then (an
// earlier step's, else the cluster's own), and the cluster's custom resources of it against
// the new schema.
func (req Request) crd(op *Operator, step *catalog.Bundle, i int, applied map[string]map[string]any) error {
	c := step.Contents
	name := c.CRDName(i)
	newCRD, err := c.CRD(i)
	if err != nil {
		op.Notes = append(op.Notes, fmt.Sprintf("CRD %s of bundle %s: %v", name, step.Name, err))
		return nil
	}
	oldCRD, found := applied[name]
	if !found {
		if oldCRD, found, err = req.Cluster.Get(crdAPIVersion, kindCRD, "", name); err != nil {
			return fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
	}
	applied[name] = newCRD
	if !found {
		return nil
	}
	findings, err := crdupgrade.Check(oldCRD, newCRD)
	if err != nil {
		op.Notes = append(op.Notes, err.Error())
		return nil
	}
	for _, f := range findings {
		op.CRDChanges = append(op.CRDChanges, CRDChange{Bundle: step.Name, CRD: f.CRD, Version: f.Version, Field: f.Field, Rule: f.Rule, Safe: f.Safe, Message: f.Message})
	}
	return req.stored(op, name, newCRD, listedVersion(oldCRD))
}

// listedVersion is the version the cluster's custom resources of a CRD are listed in: its
// storage version when served, else its first served version ("v1" when the manifest names
// none). A snapshot lists every version alike; a live cluster serves only these.
func listedVersion(crd map[string]any) string {
	versions, _ := manifest.Get(crd, "spec", "versions").([]any)
	first := ""
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if served, _ := m["served"].(bool); !served || name == "" {
			continue
		}
		if storage, _ := m["storage"].(bool); storage {
			return name
		}
		if first == "" {
			first = name
		}
	}
	if first == "" {
		return "v1"
	}
	return first
}

// stored validates the cluster's custom resources of the CRD against its new manifest, each
// as the version it was exported or listed as (listed: the version the cluster serves them in).
func (req Request) stored(op *Operator, name string, newCRD map[string]any, version string) error {
	group, kind := str(newCRD, "spec", "group"), str(newCRD, "spec", "names", "kind")
	objs, err := req.Cluster.List(group+"/"+version, kind, "")
	if err != nil {
		return fmt.Errorf("listing %s objects: %w", kind, err)
	}
	for _, obj := range objs {
		_, version, _ := strings.Cut(str(obj, "apiVersion"), "/")
		for _, p := range crdupgrade.ValidateStored(newCRD, version, []map[string]any{obj}) {
			problem := StoredProblem{CRD: name, Object: p.Object, Field: p.Field, Reason: p.Reason}
			if !slices.Contains(op.StoredObjects, problem) { // an earlier hop's CRD found it too
				op.StoredObjects = append(op.StoredObjects, problem)
			}
		}
	}
	return nil
}

// permissions compares the bundle's permissions with the installed CSV's: the CSV's rules,
// and those the RBAC among its manifests grants (manifestRules; the installed bundle's when
// the catalog carries its contents).
func (req Request) permissions(op *Operator, c *catalog.Contents) error {
	newRules := append(flatten(c.Permissions, c.ClusterPermissions), manifestRules(manifestsOf(c))...)
	oldRules := []Rule{}
	old := req.installedContents(op)
	if op.olmV1 {
		if old == nil {
			op.Notes = append(op.Notes, fmt.Sprintf("permissions not compared: OLM v1 keeps no CSV, and the catalog does not carry bundle %s's permissions", op.From))
			return nil
		}
		op.RBAC = diffRules(append(flatten(old.Permissions, old.ClusterPermissions), manifestRules(manifestsOf(old))...), newRules)
		return nil
	}
	if old != nil {
		oldRules = append(oldRules, manifestRules(manifestsOf(old))...)
	}
	if op.From != "" {
		csv, found, err := req.Cluster.Get(olmV1alpha1, kindCSV, op.Namespace, op.From)
		if err != nil {
			return fmt.Errorf("reading ClusterServiceVersion %s/%s: %w", op.Namespace, op.From, err)
		}
		if !found {
			op.Notes = append(op.Notes, fmt.Sprintf("ClusterServiceVersion %s/%s is not in the cluster: permissions are compared with none", op.Namespace, op.From))
		} else {
			perms, clusterPerms, err := csvPermissions(csv)
			if err != nil {
				op.Notes = append(op.Notes, fmt.Sprintf("ClusterServiceVersion %s/%s: spec.install.spec: %v", op.Namespace, op.From, err))
			}
			oldRules = append(oldRules, flatten(perms, clusterPerms)...)
		}
	}
	op.RBAC = diffRules(oldRules, newRules)
	return nil
}

// manifestsOf decodes a bundle's other manifests (those that do not decode are left out: the
// render reports them).
func manifestsOf(c *catalog.Contents) []map[string]any {
	var out []map[string]any
	for i := range c.Objects {
		if i >= len(c.Manifests) {
			break
		}
		if m, err := c.Manifest(i); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// installedContents are the contents the catalog holds for the installed bundle, nil when
// unknown (a loaded catalog keeps the channel heads' only).
func (req Request) installedContents(op *Operator) *catalog.Contents {
	pkg, _ := req.packageOf(op.catalogSource, op.Package)
	if pkg == nil || pkg.Bundles[op.From] == nil {
		return nil
	}
	return pkg.Bundles[op.From].Contents
}

// csvPermissions decodes a CSV object's install strategy permissions.
func csvPermissions(csv map[string]any) (perms, clusterPerms []v1alpha1.StrategyDeploymentPermissions, err error) {
	b, err := json.Marshal(csv)
	if err != nil {
		return nil, nil, err
	}
	var typed v1alpha1.ClusterServiceVersion
	if err := json.Unmarshal(b, &typed); err != nil {
		return nil, nil, err
	}
	spec := typed.Spec.InstallStrategy.StrategySpec
	return spec.Permissions, spec.ClusterPermissions, nil
}
