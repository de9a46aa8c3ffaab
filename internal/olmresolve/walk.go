package olmresolve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/lib/version"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/pkg/api"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// propertiesAnnotation is the annotation OLM's catalog operator projects a bundle's
// properties onto the CSVs it creates (projection.PropertiesAnnotationKey).
const propertiesAnnotation = "operatorframework.io/properties"

// maxPlans bounds a walk: more InstallPlans than this without a repeat is reported, not
// followed (a channel has far fewer entries).
const maxPlans = 1000

// Walk is what a namespace goes through, one InstallPlan at a time.
type Walk struct {
	// Plans are the InstallPlans, in order; the last one installed something.
	Plans []Resolution
	// Repeats names the install that brings the namespace back to a state it was in: OLM
	// goes on installing for ever ("" when the walk settles).
	Repeats string
	// Final is the cluster once the walk settles (or at the repeat).
	Final Cluster
}

// Walk resolves namespace on cluster, applies the InstallPlan as the cluster would (the
// bundles' CSVs replace the ones they replace and succeed, each Subscription's installed CSV
// becomes its current one, the Subscriptions OLM creates exist) and resolves again, until an
// InstallPlan installs nothing or the namespace returns to a state it was in.
func (r *Resolver) Walk(ctx context.Context, cluster Cluster, namespace string) (Walk, error) {
	w := Walk{Final: cluster.DeepCopy()}
	seen := map[string]bool{stateKey(w.Final, namespace): true}
	for range maxPlans {
		res, err := r.Resolve(w.Final, namespace)
		if err != nil {
			return w, err
		}
		if len(res.Installs) == 0 {
			return w, nil
		}
		w.Plans = append(w.Plans, res)
		if err := r.apply(ctx, &w.Final, namespace, res); err != nil {
			return w, err
		}
		key := stateKey(w.Final, namespace)
		if seen[key] {
			w.Repeats = res.String()
			return w, nil
		}
		seen[key] = true
	}
	return w, fmt.Errorf("namespace %s: more than %d InstallPlans without settling", namespace, maxPlans)
}

// stateKey is the namespace's installed CSVs, sorted.
func stateKey(c Cluster, namespace string) string {
	var names []string
	for _, csv := range c.CSVs {
		if csv.Namespace == namespace {
			names = append(names, csv.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// apply changes cluster as completing the InstallPlan res does.
func (r *Resolver) apply(ctx context.Context, cluster *Cluster, namespace string, res Resolution) error {
	for _, in := range res.Installs {
		csv, err := r.installedCSV(ctx, namespace, in)
		if err != nil {
			return err
		}
		cluster.CSVs = slices.DeleteFunc(cluster.CSVs, func(c *v1alpha1.ClusterServiceVersion) bool {
			return c.Namespace == namespace && (c.Name == in.Replaces || c.Name == in.CSV)
		})
		cluster.CSVs = append(cluster.CSVs, csv)
	}
	for _, sub := range append(slices.Clone(res.Updated), res.Created...) {
		sub = sub.DeepCopy()
		sub.Status.InstalledCSV = sub.Status.CurrentCSV
		sub.Status.State = v1alpha1.SubscriptionStateAtLatest
		i := slices.IndexFunc(cluster.Subscriptions, func(s *v1alpha1.Subscription) bool {
			return s.Namespace == sub.Namespace && s.Name == sub.Name
		})
		if i >= 0 {
			cluster.Subscriptions[i] = sub
		} else {
			cluster.Subscriptions = append(cluster.Subscriptions, sub)
		}
	}
	return nil
}

// installedCSV is the CSV OLM's InstallPlan creates for in, as the resolver reads it back:
// its name, version, replaces, the APIs it owns and requires, and the bundle's properties
// projected onto it.
func (r *Resolver) installedCSV(ctx context.Context, namespace string, in Install) (*v1alpha1.ClusterServiceVersion, error) {
	b, err := r.bundle(ctx, in)
	if err != nil {
		return nil, err
	}
	csv := &v1alpha1.ClusterServiceVersion{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.ClusterServiceVersionKind},
		ObjectMeta: metav1.ObjectMeta{Name: in.CSV, Namespace: namespace, Annotations: map[string]string{propertiesAnnotation: in.Properties}},
		Spec:       v1alpha1.ClusterServiceVersionSpec{Replaces: in.Replaces},
		Status:     v1alpha1.ClusterServiceVersionStatus{Phase: v1alpha1.CSVPhaseSucceeded},
	}
	if v, err := semver.ParseTolerant(b.Version); err == nil {
		csv.Spec.Version = version.OperatorVersion{Version: v}
	}
	for _, g := range b.ProvidedApis {
		csv.Spec.CustomResourceDefinitions.Owned = append(csv.Spec.CustomResourceDefinitions.Owned, v1alpha1.CRDDescription{
			Name: g.Plural + "." + g.Group, Version: g.Version, Kind: g.Kind,
		})
	}
	for _, g := range b.RequiredApis {
		csv.Spec.CustomResourceDefinitions.Required = append(csv.Spec.CustomResourceDefinitions.Required, v1alpha1.CRDDescription{
			Name: g.Plural + "." + g.Group, Version: g.Version, Kind: g.Kind,
		})
	}
	return csv, nil
}

// bundle finds in's bundle in its catalog source.
func (r *Resolver) bundle(ctx context.Context, in Install) (*api.Bundle, error) {
	for k, s := range r.served {
		if k.Namespace+"/"+k.Name != in.CatalogSource {
			continue
		}
		pkg, err := packageOf(in.Properties)
		if err != nil {
			return nil, fmt.Errorf("install %s: %w", in.CSV, err)
		}
		p, err := s.client.GetPackage(ctx, pkg)
		if err != nil {
			return nil, fmt.Errorf("install %s: package %s: %w", in.CSV, pkg, err)
		}
		for _, ch := range p.Channels {
			if b, err := s.client.GetBundle(ctx, pkg, ch.Name, in.CSV); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("install %s: no channel of package %s in %s has it", in.CSV, pkg, in.CatalogSource)
	}
	return nil, fmt.Errorf("install %s: catalog source %s is not served", in.CSV, in.CatalogSource)
}

// packageOf reads the olm.package property of a properties annotation.
func packageOf(annotation string) (string, error) {
	var props struct {
		Properties []struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(annotation), &props); err != nil {
		return "", fmt.Errorf("properties annotation: %w", err)
	}
	for _, p := range props.Properties {
		if p.Type != "olm.package" {
			continue
		}
		var v struct {
			PackageName string `json:"packageName"`
		}
		if err := json.Unmarshal(p.Value, &v); err != nil {
			return "", fmt.Errorf("olm.package property: %w", err)
		}
		return v.PackageName, nil
	}
	return "", fmt.Errorf("no olm.package property")
}

// Operator is one installed operator: its Subscription's package, channel and CatalogSource
// (namespace/name), and the CSV it has installed with that CSV's spec.version.
type Operator struct {
	Package, Channel, CatalogSource string
	InstalledCSV, InstalledVersion  string
}

// namespaceForOne is the namespace Upgrade resolves in.
const namespaceForOne = "olmresolve-upgrade"

// Upgrade walks a namespace holding op alone (its OperatorGroup, its Subscription with
// Automatic approval, its CSV succeeded, carrying its package property as OLM projects it):
// the updates OLM makes to it, one InstallPlan at a time.
func (r *Resolver) Upgrade(ctx context.Context, op Operator) (Walk, error) {
	srcNS, srcName, ok := strings.Cut(op.CatalogSource, "/")
	if !ok {
		return Walk{}, fmt.Errorf("catalog source %q: want NAMESPACE/NAME", op.CatalogSource)
	}
	v, err := semver.ParseTolerant(op.InstalledVersion)
	if err != nil {
		return Walk{}, fmt.Errorf("installed CSV %s: version %q: %w", op.InstalledCSV, op.InstalledVersion, err)
	}
	props, err := json.Marshal(map[string]any{"properties": []any{map[string]any{
		"type": "olm.package", "value": map[string]string{"packageName": op.Package, "version": v.String()},
	}}})
	if err != nil {
		return Walk{}, err
	}
	cluster := Cluster{
		OperatorGroups: []*operatorsv1.OperatorGroup{{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: namespaceForOne}}},
		Subscriptions: []*v1alpha1.Subscription{{
			ObjectMeta: metav1.ObjectMeta{Name: op.Package, Namespace: namespaceForOne},
			Spec: &v1alpha1.SubscriptionSpec{
				Package: op.Package, Channel: op.Channel, CatalogSource: srcName, CatalogSourceNamespace: srcNS,
				InstallPlanApproval: v1alpha1.ApprovalAutomatic,
			},
			Status: v1alpha1.SubscriptionStatus{InstalledCSV: op.InstalledCSV, CurrentCSV: op.InstalledCSV, State: v1alpha1.SubscriptionStateAtLatest},
		}},
		CSVs: []*v1alpha1.ClusterServiceVersion{{
			ObjectMeta: metav1.ObjectMeta{Name: op.InstalledCSV, Namespace: namespaceForOne, Annotations: map[string]string{propertiesAnnotation: string(props)}},
			Spec:       v1alpha1.ClusterServiceVersionSpec{Version: version.OperatorVersion{Version: v}},
			Status:     v1alpha1.ClusterServiceVersionStatus{Phase: v1alpha1.CSVPhaseSucceeded},
		}},
	}
	return r.Walk(ctx, cluster, namespaceForOne)
}

// Hops are a walk's updates of one package's CSV, as "from -> to" pairs, in order.
func (w Walk) Hops() [][2]string {
	var out [][2]string
	for _, p := range w.Plans {
		for _, in := range p.Installs {
			if in.Replaces != "" {
				out = append(out, [2]string{in.Replaces, in.CSV})
			}
		}
	}
	return out
}
