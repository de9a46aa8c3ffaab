// Package olmresolve owns the project's use of OLM v0's own resolver: what the catalog
// operator of operator-lifecycle-manager will install in a namespace, computed offline by
// its code rather than modelled by hand.
//
// The parts are OLM's and operator-registry's: each catalog is served as `opm serve` serves
// it (operator-registry's cache built from the file-based catalog, its registry server, a
// registry client over an in-process gRPC connection), and OLM's step resolver
// (pkg/controller/registry/resolver) resolves a namespace from listers over the given
// cluster state: CatalogSources with their priorities, ClusterServiceVersions,
// Subscriptions and OperatorGroups. Only the transport (no network) and the store behind the
// listers (objects given, not watched) are this package's.
//
// Resolve answers what one InstallPlan of a namespace holds; Walk applies each answer as the
// cluster would (the installed CSVs and the Subscriptions' status) and resolves again, one
// InstallPlan at a time, until nothing more is installed or an install repeats (OLM then
// goes back and forth for ever).
package olmresolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/clientset/versioned/fake"
	v1listers "github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/listers/operators/v1"
	v1alpha1listers "github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/listers/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorlister"
	registryclient "github.com/operator-framework/operator-registry/pkg/client"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Source is one CatalogSource and the file-based catalog it serves.
type Source struct {
	// Name and Namespace name the CatalogSource.
	Name, Namespace string
	// Priority is the CatalogSource's spec.priority: OLM prefers higher ones for
	// dependencies.
	Priority int
	// FBC is the catalog's content, as the CatalogSource's image serves it.
	FBC fs.FS
}

// Key is the CatalogSource's namespace/name.
func (s Source) Key() string { return s.Namespace + "/" + s.Name }

// Cluster is the OLM state a resolution reads: the objects OLM's listers would hold.
type Cluster struct {
	CSVs           []*v1alpha1.ClusterServiceVersion
	Subscriptions  []*v1alpha1.Subscription
	OperatorGroups []*operatorsv1.OperatorGroup
}

// DeepCopy returns a copy whose objects can be changed without changing c's.
func (c Cluster) DeepCopy() Cluster {
	var out Cluster
	for _, o := range c.CSVs {
		out.CSVs = append(out.CSVs, o.DeepCopy())
	}
	for _, o := range c.Subscriptions {
		out.Subscriptions = append(out.Subscriptions, o.DeepCopy())
	}
	for _, o := range c.OperatorGroups {
		out.OperatorGroups = append(out.OperatorGroups, o.DeepCopy())
	}
	return out
}

// Resolver resolves namespaces against a fixed set of served catalogs. Close stops them.
type Resolver struct {
	sources         []Source
	served          map[registry.CatalogKey]*served
	refused         map[string]error
	globalNamespace string
}

// New serves every source as `opm serve` would. A catalog opm refuses is not an error here:
// its CatalogSource serves nothing, as in a cluster (Refused says why). globalNamespace is
// OLM's global catalog namespace (openshift-marketplace on OpenShift, olm upstream).
func New(ctx context.Context, sources []Source, globalNamespace string) (*Resolver, error) {
	r := &Resolver{served: map[registry.CatalogKey]*served{}, refused: map[string]error{}, globalNamespace: globalNamespace}
	seen := map[string]bool{}
	for _, s := range sources {
		if s.Name == "" || s.Namespace == "" {
			r.Close()
			return nil, fmt.Errorf("catalog source %q: a name and a namespace are needed", s.Key())
		}
		if seen[s.Key()] {
			r.Close()
			return nil, fmt.Errorf("catalog source %s given twice", s.Key())
		}
		seen[s.Key()] = true
		r.sources = append(r.sources, s)
		sv, err := serve(ctx, s.FBC)
		var refused *RefusedError
		if errors.As(err, &refused) {
			r.refused[s.Key()] = err
			continue
		}
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("catalog source %s: %w", s.Key(), err)
		}
		r.served[registry.CatalogKey{Name: s.Name, Namespace: s.Namespace}] = sv
	}
	return r, nil
}

// Refused returns the reason opm serve refuses a source's catalog (nil when it serves it).
func (r *Resolver) Refused(namespace, name string) error { return r.refused[namespace+"/"+name] }

// Close stops every served catalog and removes its cache.
func (r *Resolver) Close() {
	for _, s := range r.served {
		s.stop()
	}
	r.served = nil
}

// ClientsForNamespaces is OLM's RegistryClientProvider: the served catalogs of the
// namespaces.
func (r *Resolver) ClientsForNamespaces(namespaces ...string) map[registry.CatalogKey]registryclient.Interface {
	out := map[registry.CatalogKey]registryclient.Interface{}
	for k, s := range r.served {
		for _, ns := range namespaces {
			if k.Namespace == ns {
				out[k] = s.client
			}
		}
	}
	return out
}

// Install is one bundle an InstallPlan installs.
type Install struct {
	// CSV is the bundle's ClusterServiceVersion name.
	CSV string
	// Replaces is the installed CSV it replaces ("" for a new install).
	Replaces string
	// CatalogSource is the source's namespace/name.
	CatalogSource string
	// BundlePath is the bundle image.
	BundlePath string
	// Properties is the bundle's properties annotation as OLM writes it on the CSV.
	Properties string
}

// Resolution is what one InstallPlan of a namespace holds.
type Resolution struct {
	// Installs are the bundles installed, sorted by CSV name.
	Installs []Install
	// Created are the Subscriptions OLM creates for the installs no Subscription asked for
	// (dependencies), as it writes them, with status.currentCSV the install; sorted by name.
	Created []*v1alpha1.Subscription
	// Updated are the Subscriptions whose current CSV moves to an install, sorted by name.
	Updated []*v1alpha1.Subscription
}

// Resolve runs OLM's step resolver for namespace on cluster: the InstallPlan the catalog
// operator would create now. An unsatisfiable namespace is an error with OLM's message.
func (r *Resolver) Resolve(cluster Cluster, namespace string) (Resolution, error) {
	lister, objects := r.listers(cluster)
	client := fake.NewSimpleClientset(objects...)
	log := logrus.New()
	log.SetOutput(io.Discard)
	sp := resolver.SourceProviderFromRegistryClientProvider(r, lister.OperatorsV1alpha1().CatalogSourceLister(), log)
	cacheProvider := resolver.NewOperatorCacheProvider(lister, client, sp, log)
	steps := resolver.NewOperatorStepResolver(lister, client, r.globalNamespace, cacheProvider, log)
	planSteps, lookups, subs, err := steps.ResolveSteps(namespace)
	if err != nil {
		return Resolution{}, err
	}
	var out Resolution
	for _, st := range planSteps {
		if st.Resource.Kind != v1alpha1.SubscriptionKind {
			continue
		}
		var s v1alpha1.Subscription
		if err := json.Unmarshal([]byte(st.Resource.Manifest), &s); err != nil {
			return Resolution{}, fmt.Errorf("OLM's Subscription step for %s: %w", st.Resolving, err)
		}
		s.Status.CurrentCSV = st.Resolving
		out.Created = append(out.Created, &s)
	}
	sort.Slice(out.Created, func(i, j int) bool { return out.Created[i].Name < out.Created[j].Name })
	for _, l := range lookups {
		in := Install{CSV: l.Identifier, Replaces: l.Replaces, BundlePath: l.Path, Properties: l.Properties}
		if ref := l.CatalogSourceRef; ref != nil {
			in.CatalogSource = ref.Namespace + "/" + ref.Name
		}
		out.Installs = append(out.Installs, in)
	}
	sort.Slice(out.Installs, func(i, j int) bool { return out.Installs[i].CSV < out.Installs[j].CSV })
	out.Updated = subs
	sort.Slice(out.Updated, func(i, j int) bool { return out.Updated[i].Name < out.Updated[j].Name })
	return out, nil
}

// listers returns OLM's lister over the cluster's objects and the CatalogSources of the
// served sources, and every object (for the clientset OLM's resolver lists Subscriptions
// through when its listers look incoherent).
func (r *Resolver) listers(cluster Cluster) (operatorlister.OperatorLister, []runtime.Object) {
	lister := operatorlister.NewLister()
	index := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	catalogs, csvs, subs, ogs := index(), index(), index(), index()
	var objects []runtime.Object
	add := func(ix cache.Indexer, kind string, o interface {
		runtime.Object
		metav1.Object
	}) {
		if o.GetUID() == "" {
			o.SetUID(types.UID(kind + "/" + o.GetNamespace() + "/" + o.GetName()))
		}
		_ = ix.Add(o) // an indexer with these key functions fails only for objects without metadata
		objects = append(objects, o)
	}
	for _, s := range r.sources {
		add(catalogs, "CatalogSource", &v1alpha1.CatalogSource{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.CatalogSourceKind},
			ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace},
			Spec:       v1alpha1.CatalogSourceSpec{SourceType: v1alpha1.SourceTypeGrpc, Priority: s.Priority},
		})
	}
	for _, o := range cluster.CSVs {
		add(csvs, "ClusterServiceVersion", o.DeepCopy())
	}
	for _, o := range cluster.Subscriptions {
		add(subs, "Subscription", o.DeepCopy())
	}
	for _, o := range cluster.OperatorGroups {
		add(ogs, "OperatorGroup", o.DeepCopy())
	}
	all := metav1.NamespaceAll
	lister.OperatorsV1alpha1().RegisterCatalogSourceLister(all, v1alpha1listers.NewCatalogSourceLister(catalogs))
	lister.OperatorsV1alpha1().RegisterClusterServiceVersionLister(all, v1alpha1listers.NewClusterServiceVersionLister(csvs))
	lister.OperatorsV1alpha1().RegisterSubscriptionLister(all, v1alpha1listers.NewSubscriptionLister(subs))
	lister.OperatorsV1().RegisterOperatorGroupLister(all, v1listers.NewOperatorGroupLister(ogs))
	return lister, objects
}

// describe names an install for messages.
func (in Install) describe() string {
	if in.Replaces == "" {
		return in.CSV
	}
	return in.Replaces + " -> " + in.CSV
}

// String lists the installs.
func (res Resolution) String() string {
	var parts []string
	for _, in := range res.Installs {
		parts = append(parts, in.describe())
	}
	return strings.Join(parts, ", ")
}

// Package is the install's package, read from the properties OLM projects on its CSV ("" when
// they name none).
func (in Install) Package() string {
	pkg, err := packageOf(in.Properties)
	if err != nil {
		return ""
	}
	return pkg
}

// OpenShiftGlobalNamespace is OLM's global catalog namespace on OpenShift: CatalogSources
// there serve every namespace.
const OpenShiftGlobalNamespace = "openshift-marketplace"

// ServeAs serves one catalog as each of the CatalogSources keys ("namespace/name"), in the
// keys' order, priority 0: what plan and mirror resolve against when the catalogs given are
// the content of every CatalogSource the Subscriptions name. A catalog opm serve refuses is an
// error naming the source and opm's reason.
func ServeAs(ctx context.Context, fbc fs.FS, keys []string, globalNamespace string) (*Resolver, error) {
	var sources []Source
	for _, key := range keys {
		ns, name, ok := strings.Cut(key, "/")
		if !ok {
			return nil, fmt.Errorf("catalog source %q: want NAMESPACE/NAME", key)
		}
		sources = append(sources, Source{Name: name, Namespace: ns, FBC: fbc})
	}
	r, err := New(ctx, sources, globalNamespace)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		if err := r.Refused(s.Namespace, s.Name); err != nil {
			r.Close()
			return nil, fmt.Errorf("catalog source %s: %w", s.Key(), err)
		}
	}
	return r, nil
}

// WithoutDependencies is a copy of pkg whose bundles require nothing (no
// olm.package.required, olm.gvk.required or olm.constraint): what the path of one package
// is compared on, apart from what else OLM must install.
func WithoutDependencies(pkg *catalog.Package) *catalog.Package {
	out := *pkg
	out.Bundles = map[string]*catalog.Bundle{}
	for name, b := range pkg.Bundles {
		c := *b
		c.RequiredPackages, c.RequiredGVKs = nil, nil
		c.Properties = slices.DeleteFunc(slices.Clone(b.Properties), func(p catalog.Property) bool { return p.Type == "olm.constraint" })
		out.Bundles[name] = &c
	}
	return &out
}
