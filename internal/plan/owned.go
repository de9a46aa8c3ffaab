package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// ruleNoLongerOwned names the finding of a CRD the installed CSV owns and the target bundle
// does not.
const ruleNoLongerOwned = "crdNoLongerOwned"

// dropped finds the CRDs the cluster's installed CSV owns (spec.customresourcedefinitions.
// owned) whose group and kind the target bundle b no longer provides: OLM deletes neither the
// CRD nor its custom resources when the new CSV replaces the old one, and nothing reconciles
// them any more. Each is an unsafe finding, with the number of its stored objects when the
// cluster serves the kind. Nothing is said when the cluster has no CSV, or b's provided APIs
// are unknown.
func (req Request) dropped(op *Operator, b *catalog.Bundle) error {
	if op.From == "" || op.From == b.Name || op.olmV1 || len(b.ProvidedGVKs) == 0 {
		return nil
	}
	csv, found, err := req.Cluster.Get(olmV1alpha1, kindCSV, op.Namespace, op.From)
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return fmt.Errorf("reading ClusterServiceVersion %s/%s: %w", op.Namespace, op.From, err)
	}
	if !found {
		return nil
	}
	owned, _ := manifest.Get(csv, "spec", "customresourcedefinitions", "owned").([]any)
	for _, o := range owned {
		m, _ := o.(map[string]any)
		name, _ := m["name"].(string)
		kind, _ := m["kind"].(string)
		version, _ := m["version"].(string)
		_, group, ok := strings.Cut(name, ".")
		if !ok || kind == "" {
			continue
		}
		if slices.ContainsFunc(b.ProvidedGVKs, func(g catalog.GVK) bool { return g.Group == group && g.Kind == kind }) {
			continue
		}
		op.CRDChanges = append(op.CRDChanges, CRDChange{Bundle: b.Name, CRD: name, Version: version, Rule: ruleNoLongerOwned,
			Message: fmt.Sprintf("%s owns it and %s does not: OLM leaves the CRD and %s in the cluster, and nothing reconciles them any more",
				op.From, b.Name, req.storedCount(group, version, kind))})
	}
	return nil
}

// storedCount says how many custom resources of a kind the cluster stores.
func (req Request) storedCount(group, version, kind string) string {
	if version == "" {
		return "its stored objects"
	}
	objs, err := req.Cluster.List(group+"/"+version, kind, "")
	if err != nil {
		return "its stored objects (not listed: " + err.Error() + ")"
	}
	if len(objs) == 1 {
		return "its 1 stored object"
	}
	return fmt.Sprintf("its %d stored objects", len(objs))
}
