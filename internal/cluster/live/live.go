// Package live owns reading a live cluster, read-only, from an API server it does not
// trust: a kubeconfig Connection whose HTTP transport refuses every method but GET, follows
// no redirect and bounds every response body, whose LISTs are bounded in pages, objects and
// bytes and whose requests share one deadline, with client-go's logs silenced and, on
// request, credential plugins refused; and a cluster.Reader that GETs single objects and
// LISTs kinds. Connect is shared with odlm-render installed. It lives apart from
// internal/cluster so that the KRM function, which never reads a cluster, does not link
// client-go.
package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Reader reads objects from a live cluster with GET requests only: one GET per object or
// per LIST page, plus one discovery GET per group-version (cached) to map a kind to its
// resource, all within its Connection's limits. It never writes: its HTTP transport refuses
// any other method. Errors never carry object contents. A Reader is safe for concurrent use.
type Reader struct {
	conn     *Connection
	pageSize int

	mu        sync.Mutex
	resources map[string][]metav1.APIResource // by group-version, served ones only
	down      error                           // set once the server was unreachable: fail fast afterwards
}

var _ cluster.Reader = (*Reader)(nil)

// NewReader loads the kubeconfig and prepares a client. It sends no request.
func NewReader(opts Options) (*Reader, error) {
	c, err := Connect(opts)
	if err != nil {
		return nil, err
	}
	pageSize := opts.ListPageSize
	if pageSize <= 0 {
		pageSize = DefaultListPageSize
	}
	return &Reader{conn: c, pageSize: pageSize, resources: map[string][]metav1.APIResource{}}, nil
}

// Server is the API server's URL, for messages.
func (l *Reader) Server() string { return l.conn.Server }

// Get implements cluster.Reader: it GETs exactly the named object. A cluster-scoped kind ignores
// namespace. The object is a value tree (map[string]any, []any, string, bool, nil,
// json.Number).
func (l *Reader) Get(apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	if err := l.failed(); err != nil {
		return nil, false, err
	}
	if kind == "" || apiVersion == "" {
		return nil, false, fmt.Errorf("live cluster %s: apiVersion and kind are needed (got %q, %q)", l.conn.Server, apiVersion, kind)
	}
	if err := checkSegment("name", name); err != nil {
		return nil, false, fmt.Errorf("live cluster %s: %s %s: %w", l.conn.Server, apiVersion, kind, err)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false, fmt.Errorf("live cluster %s: apiVersion %q: %w", l.conn.Server, apiVersion, err)
	}
	res, err := l.resourceFor(gv, kind)
	if err != nil {
		return nil, false, err
	}
	segments := []string{groupVersionPath(gv)}
	where := name
	if res.Namespaced {
		if namespace == "" {
			return nil, false, fmt.Errorf("live cluster %s: %s %s %q is namespaced: a namespace is needed", l.conn.Server, apiVersion, kind, name)
		}
		if err := checkSegment("namespace", namespace); err != nil {
			return nil, false, fmt.Errorf("live cluster %s: %s %s: %w", l.conn.Server, apiVersion, kind, err)
		}
		segments = append(segments, "namespaces", namespace)
		where = namespace + "/" + name
	}
	segments = append(segments, res.Name, name)

	body, err := l.conn.get(resourceName(gv, res.Name)+" "+where, segments...)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, l.describe(err, resourceName(gv, res.Name), where)
	}
	v, err := manifest.DecodeJSONValue(body)
	if err != nil {
		return nil, false, fmt.Errorf("live cluster %s: get %s %s: the response is not JSON", l.conn.Server, resourceName(gv, res.Name), where)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("live cluster %s: get %s %s: the response is not an object", l.conn.Server, resourceName(gv, res.Name), where)
	}
	return obj, true, nil
}

// DefaultListPageSize is how many objects one LIST page holds: 100 objects of up to 640 KiB
// fit a page in DefaultMaxResponseBytes, and DefaultMaxListPages pages hold
// DefaultMaxListObjects objects.
const DefaultListPageSize = 100

var _ cluster.Lister = (*Reader)(nil)

// List implements cluster.Lister: a LIST (a GET) of the kind in namespace, or in all
// namespaces when namespace is "" or the kind is cluster-scoped, page by page (limit and
// continue), items sorted by namespace and name with their apiVersion and kind set. A kind
// the cluster does not serve is an error wrapping cluster.ErrNotServed; one the user may not
// list, an error wrapping cluster.ErrForbidden.
func (l *Reader) List(apiVersion, kind, namespace string) ([]map[string]any, error) {
	return l.list(apiVersion, kind, namespace, "")
}

var _ cluster.LabelLister = (*Reader)(nil)

// ListLabelled implements cluster.LabelLister: List with the label selector label=value, so
// that the server sends only the objects that carry the label.
func (l *Reader) ListLabelled(apiVersion, kind, namespace, label, value string) ([]map[string]any, error) {
	if label == "" {
		return nil, fmt.Errorf("live cluster %s: list %s %s: an empty label", l.conn.Server, apiVersion, kind)
	}
	return l.list(apiVersion, kind, namespace, label+"="+value)
}

// list is List with a label selector ("" for none).
func (l *Reader) list(apiVersion, kind, namespace, selector string) ([]map[string]any, error) {
	if err := l.failed(); err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("live cluster %s: apiVersion %q: %w", l.conn.Server, apiVersion, err)
	}
	res, err := l.resourceFor(gv, kind)
	if err != nil {
		return nil, err
	}
	segments := []string{groupVersionPath(gv)}
	where := " in all namespaces"
	if res.Namespaced && namespace != "" {
		if err := checkSegment("namespace", namespace); err != nil {
			return nil, fmt.Errorf("live cluster %s: %s %s: %w", l.conn.Server, apiVersion, kind, err)
		}
		segments = append(segments, "namespaces", namespace)
		where = " in namespace " + namespace
	}
	segments = append(segments, res.Name)
	items, err := l.conn.List(ListRequest{Segments: segments, Resource: resourceName(gv, res.Name), Scope: where, PageSize: l.pageSize, LabelSelector: selector})
	if err != nil {
		described, unreachable := l.conn.Describe(err, "list", resourceName(gv, res.Name), where)
		if unreachable {
			l.markDown(described)
		}
		return nil, described
	}
	return sortedItems(items, apiVersion, kind), nil
}

// sortedItems are a LIST's items that are objects, with apiVersion and kind set, sorted by
// namespace and name.
func sortedItems(items []any, apiVersion, kind string) []map[string]any {
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			m["apiVersion"], m["kind"] = apiVersion, kind
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := manifest.New(out[i]), manifest.New(out[j])
		if a.Namespace() != b.Namespace() {
			return a.Namespace() < b.Namespace()
		}
		return a.Name() < b.Name()
	})
	return out
}

var _ cluster.ServedChecker = (*Reader)(nil)

// Serves implements cluster.ServedChecker with the discovery of the kind's group-version.
func (l *Reader) Serves(apiVersion, kind string) (bool, error) {
	if err := l.failed(); err != nil {
		return false, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false, fmt.Errorf("live cluster %s: apiVersion %q: %w", l.conn.Server, apiVersion, err)
	}
	_, err = l.resourceFor(gv, kind)
	switch {
	case errors.Is(err, cluster.ErrNotServed):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// resourceFor maps a kind to the resource serving it, with one discovery request per
// group-version (discover).
func (l *Reader) resourceFor(gv schema.GroupVersion, kind string) (metav1.APIResource, error) {
	list, err := l.discover(gv)
	if errors.Is(err, cluster.ErrNotServed) {
		return metav1.APIResource{}, l.notServed(gv, kind)
	}
	if err != nil {
		return metav1.APIResource{}, err
	}
	for _, r := range list {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return r, nil
		}
	}
	return metav1.APIResource{}, l.notServed(gv, kind)
}

// discover is the resources a group-version serves, from one discovery request. A
// group-version that is not served is an error wrapping cluster.ErrNotServed, and is asked
// again next time (a CRD may appear); a served one is cached.
func (l *Reader) discover(gv schema.GroupVersion) ([]metav1.APIResource, error) {
	key := gv.String()
	l.mu.Lock()
	list, ok := l.resources[key]
	l.mu.Unlock()
	if ok {
		return list, nil
	}
	body, err := l.conn.get("discovery of "+key, groupVersionPath(gv))
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, notServedError(fmt.Sprintf("live cluster %s: the cluster does not serve %s", l.conn.Server, key))
		}
		return nil, l.describe(err, "", "discovery of "+key)
	}
	var rl metav1.APIResourceList
	if err := json.Unmarshal(body, &rl); err != nil {
		return nil, fmt.Errorf("live cluster %s: discovery of %s: the response is not an APIResourceList", l.conn.Server, key)
	}
	l.mu.Lock()
	l.resources[key] = rl.APIResources
	l.mu.Unlock()
	return rl.APIResources, nil
}

func (l *Reader) notServed(gv schema.GroupVersion, kind string) error {
	return notServedError(fmt.Sprintf("live cluster %s: the cluster does not serve %s %s", l.conn.Server, gv.String(), kind))
}

// notServedError is a kind the cluster does not serve: errors.Is(err, cluster.ErrNotServed).
type notServedError string

func (e notServedError) Error() string        { return string(e) }
func (e notServedError) Is(target error) bool { return target == cluster.ErrNotServed }

func (l *Reader) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

// describe turns a request error into a message that names the server, the resource and the
// object, never its contents.
func (l *Reader) describe(err error, resource, where string) error {
	described, unreachable := l.conn.Describe(err, "get", strings.TrimSpace(resource+" "+where), "")
	if unreachable {
		l.markDown(described)
	}
	return described
}

// markDown remembers the first unreachable error: later reads fail fast with it.
func (l *Reader) markDown(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down == nil {
		l.down = err
	}
}

func groupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

func resourceName(gv schema.GroupVersion, resource string) string {
	if gv.Group == "" {
		return resource
	}
	return resource + "." + gv.Group
}

// checkSegment refuses names that would change the request path.
func checkSegment(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s", what)
	}
	if s == "." || s == ".." || strings.ContainsAny(s, "/%?#") {
		return fmt.Errorf("invalid %s %q", what, s)
	}
	return nil
}
