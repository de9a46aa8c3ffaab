package installed

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/odlm-render/odlm-render/internal/cluster/live"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// listPageSize is the number of objects asked for per LIST request (continued until done).
// A page must fit live.DefaultMaxResponseBytes: ClusterServiceVersions
// run to hundreds of kilobytes (icons, CRD descriptions), so a page holds 100 of them, not
// the 500 usual elsewhere.
const listPageSize = 100

// LiveOptions says which cluster a LiveLister reads (the live reader's options).
type LiveOptions = live.Options

// LiveLister lists OLM objects of a live cluster with LIST requests (HTTP GET, paginated)
// through a live.Connection: its transport refuses every method but GET, its reads are
// bounded by the connection's limits (LiveOptions), and errors name the server and the
// resource, never object contents.
type LiveLister struct {
	conn *live.Connection
	// pageSize is the objects per LIST page (listPageSize; smaller in tests).
	pageSize int
}

// resource is a kind this package lists, with its fixed REST path.
type resource struct {
	group, version, plural, kind string
}

func (r resource) path() string {
	if r.group == "" {
		return "/api/" + r.version + "/" + r.plural
	}
	return "/apis/" + r.group + "/" + r.version + "/" + r.plural
}

func (r resource) name() string {
	if r.group == "" {
		return r.plural
	}
	return r.plural + "." + r.group
}

func (r resource) apiVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

var (
	resSubscriptions  = resource{OLMGroup, "v1alpha1", "subscriptions", KindSubscription}
	resCSVs           = resource{OLMGroup, "v1alpha1", "clusterserviceversions", KindCSV}
	resOperatorGroups = resource{OLMGroup, operatorGroupVersion, "operatorgroups", KindOperatorGroup}
	resNamespaces     = resource{"", "v1", "namespaces", "Namespace"}
)

// NewLiveLister loads the kubeconfig and prepares a read-only client (live.Connect). It
// sends no request.
func NewLiveLister(opts LiveOptions) (*LiveLister, error) {
	c, err := live.Connect(opts)
	if err != nil {
		return nil, err
	}
	return &LiveLister{conn: c, pageSize: listPageSize}, nil
}

// Server is the API server's URL, for messages.
func (l *LiveLister) Server() string { return l.conn.Server }

// Namespace is the kubeconfig context's namespace ("default" when it names none).
func (l *LiveLister) Namespace() string { return l.conn.Namespace }

// Read lists the Subscriptions, ClusterServiceVersions and OperatorGroups of all
// namespaces, and with namespaces also the Namespaces (a failure to list those is a
// warning: operators watching all namespaces are then shown in the namespaces that hold
// OLM objects only).
func (l *LiveLister) Read(namespaces bool) (Cluster, diag.Results, error) {
	var c Cluster
	var err error
	if c.Subscriptions, err = l.list(resSubscriptions); err != nil {
		return Cluster{}, nil, err
	}
	if c.CSVs, err = l.list(resCSVs); err != nil {
		return Cluster{}, nil, err
	}
	if c.OperatorGroups, err = l.list(resOperatorGroups); err != nil {
		return Cluster{}, nil, err
	}
	var rs diag.Results
	if namespaces {
		nss, err := l.list(resNamespaces)
		if err != nil {
			rs = append(rs, diag.Result{Severity: diag.Warning, Message: err.Error() + ": operators watching all namespaces are shown only in the namespaces holding OLM objects"})
		}
		for _, n := range nss {
			c.Namespaces = append(c.Namespaces, n.Name())
		}
	}
	c.sort()
	return c, rs, nil
}

// list reads every object of a resource in all namespaces, page by page, within the
// connection's limits (pages, objects, bytes, deadline).
func (l *LiveLister) list(r resource) ([]*manifest.Object, error) {
	items, err := l.conn.List(live.ListRequest{Segments: []string{r.path()}, Resource: r.name(), Scope: " in all namespaces", PageSize: l.pageSize})
	if err != nil {
		return nil, l.describe(err, r)
	}
	out := make([]*manifest.Object, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("live cluster %s: list %s: an item is not an object", l.conn.Server, r.name())
		}
		// items of built-in lists come without apiVersion and kind
		if _, ok := m["apiVersion"].(string); !ok {
			m["apiVersion"] = r.apiVersion()
		}
		if _, ok := m["kind"].(string); !ok {
			m["kind"] = r.kind
		}
		out = append(out, manifest.New(m))
	}
	return out, nil
}

// describe turns a request error into a message naming the server and the resource.
func (l *LiveLister) describe(err error, r resource) error {
	if apierrors.IsNotFound(err) {
		hint := ""
		if r.group == OLMGroup {
			hint = " (is OLM installed?)"
		}
		return fmt.Errorf("live cluster %s: the cluster does not serve %s %s%s", l.conn.Server, r.apiVersion(), r.plural, hint)
	}
	described, _ := l.conn.Describe(err, "list", r.name(), " in all namespaces")
	return described
}
