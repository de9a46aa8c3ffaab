// Package live owns reading a live cluster, read-only: a kubeconfig connection whose HTTP
// transport refuses every method but GET, and a cluster.Reader that GETs single objects.
// Connect is shared with odlm-render installed. It lives apart from internal/cluster so that
// the KRM function, which never reads a cluster, does not link client-go.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// DefaultTimeout bounds each request to a live cluster when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// dialTimeout bounds connecting to the API server, so that an unreachable cluster fails fast.
const dialTimeout = 3 * time.Second

// Options says which cluster a Reader reads from.
type Options struct {
	// Kubeconfig is the kubeconfig file; empty means what kubectl uses ($KUBECONFIG, then
	// ~/.kube/config, then the in-cluster service account).
	Kubeconfig string
	// Context is the kubeconfig context; empty means the current context.
	Context string
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration

	// WrapTransport, for tests, wraps the HTTP transport under the read-only guard, so it
	// sees exactly the requests that leave the process.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Reader reads objects from a live cluster with GET requests only: one GET per object, plus
// one discovery GET per group-version (cached) to map a kind to its resource. It never
// writes: its HTTP transport refuses any other method. Errors never carry object contents.
// A Reader is safe for concurrent use.
type Reader struct {
	conn *Connection

	mu        sync.Mutex
	resources map[string][]metav1.APIResource // by group-version, served ones only
	down      error                           // set once the server was unreachable: fail fast afterwards
}

var _ cluster.Reader = (*Reader)(nil)

// Connection is a read-only REST client for the cluster of a kubeconfig: its transport
// refuses every method but GET (a LIST is a GET). The live reader and other read-only
// commands (odlm-render installed) share it.
type Connection struct {
	Client    rest.Interface
	Server    string // the API server's URL
	User      string // the kubeconfig user, for messages
	Namespace string // the context's namespace ("default" when it names none)
	Timeout   time.Duration
}

// Connect loads the kubeconfig (as kubectl does when opts.Kubeconfig is empty) and prepares
// a client. It sends no request.
func Connect(opts Options) (*Connection, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "kubeconfig"
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
		where = "kubeconfig " + opts.Kubeconfig
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: opts.Context})
	cfg, err := loader.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, fmt.Errorf("live cluster: no %s found (set --kubeconfig or $KUBECONFIG, or create ~/.kube/config)", where)
		}
		return nil, fmt.Errorf("live cluster: %s: %w", where, err)
	}
	namespace, _, err := loader.Namespace()
	if err != nil || namespace == "" {
		namespace = "default"
	}
	user := ""
	if raw, err := loader.RawConfig(); err == nil {
		name := opts.Context
		if name == "" {
			name = raw.CurrentContext
		}
		if c, ok := raw.Contexts[name]; ok && c != nil {
			user = c.AuthInfo
		}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cfg = dynamic.ConfigFor(cfg)                // the dynamic client's JSON-only, scheme-free REST client
	cfg.AcceptContentTypes = "application/json" // raw JSON, even where CBOR is enabled
	cfg.Timeout = timeout
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NoWarnings{}
	dialer := &net.Dialer{Timeout: min(dialTimeout, timeout), KeepAlive: 30 * time.Second}
	if cfg.Dial == nil && cfg.Proxy == nil {
		cfg.Dial = dialer.DialContext
	}
	if opts.WrapTransport != nil {
		cfg.Wrap(opts.WrapTransport)
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnlyTransport{rt} })
	// like the dynamic client: unversioned, absolute paths per request
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("live cluster: %s: %w", where, err)
	}
	return &Connection{Client: client, Server: cfg.Host, User: user, Namespace: namespace, Timeout: timeout}, nil
}

// NewReader loads the kubeconfig and prepares a client. It sends no request.
func NewReader(opts Options) (*Reader, error) {
	c, err := Connect(opts)
	if err != nil {
		return nil, err
	}
	return &Reader{conn: c, resources: map[string][]metav1.APIResource{}}, nil
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

	body, err := l.get(segments...)
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

// listPageSize is how many objects one LIST page holds (a variable for tests).
var listPageSize = 500

var _ cluster.Lister = (*Reader)(nil)

// List implements cluster.Lister: a LIST (a GET) of the kind in namespace, or in all
// namespaces when namespace is "" or the kind is cluster-scoped, page by page (limit and
// continue), items sorted by namespace and name with their apiVersion and kind set. A kind
// the cluster does not serve is an error wrapping cluster.ErrNotServed.
func (l *Reader) List(apiVersion, kind, namespace string) ([]map[string]any, error) {
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
	var out []map[string]any
	cont := ""
	for {
		body, err := l.list(cont, segments...)
		if err != nil {
			described, unreachable := l.conn.Describe(err, "list", resourceName(gv, res.Name), where)
			if unreachable {
				l.mu.Lock()
				if l.down == nil {
					l.down = described
				}
				l.mu.Unlock()
			}
			return nil, described
		}
		v, err := manifest.DecodeJSONValue(body)
		page, _ := v.(map[string]any)
		if err != nil || page == nil {
			return nil, fmt.Errorf("live cluster %s: list %s%s: the response is not a list", l.conn.Server, resourceName(gv, res.Name), where)
		}
		items, _ := page["items"].([]any)
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			m["apiVersion"], m["kind"] = apiVersion, kind
			out = append(out, m)
		}
		cont, _ = manifest.Get(page, "metadata", "continue").(string)
		if cont == "" {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := manifest.New(out[i]), manifest.New(out[j])
		if a.Namespace() != b.Namespace() {
			return a.Namespace() < b.Namespace()
		}
		return a.Name() < b.Name()
	})
	return out, nil
}

func (l *Reader) list(cont string, segments ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.conn.Timeout)
	defer cancel()
	req := l.conn.Client.Get().AbsPath(segments...).Param("limit", strconv.Itoa(listPageSize))
	if cont != "" {
		req = req.Param("continue", cont)
	}
	res := req.Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error()
	}
	return body, nil
}

// resourceFor maps a kind to the resource serving it, with one discovery request per
// group-version. A group-version that is not served is asked again next time (a CRD may
// appear); a served one is cached.
func (l *Reader) resourceFor(gv schema.GroupVersion, kind string) (metav1.APIResource, error) {
	key := gv.String()
	l.mu.Lock()
	list, ok := l.resources[key]
	l.mu.Unlock()
	if !ok {
		body, err := l.get(groupVersionPath(gv))
		if err != nil {
			if apierrors.IsNotFound(err) {
				return metav1.APIResource{}, l.notServed(gv, kind)
			}
			return metav1.APIResource{}, l.describe(err, "", "discovery of "+key)
		}
		var rl metav1.APIResourceList
		if err := json.Unmarshal(body, &rl); err != nil {
			return metav1.APIResource{}, fmt.Errorf("live cluster %s: discovery of %s: the response is not an APIResourceList", l.conn.Server, key)
		}
		list = rl.APIResources
		l.mu.Lock()
		l.resources[key] = list
		l.mu.Unlock()
	}
	for _, r := range list {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return r, nil
		}
	}
	return metav1.APIResource{}, l.notServed(gv, kind)
}

func (l *Reader) notServed(gv schema.GroupVersion, kind string) error {
	return notServedError(fmt.Sprintf("live cluster %s: the cluster does not serve %s %s", l.conn.Server, gv.String(), kind))
}

// notServedError is a kind the cluster does not serve: errors.Is(err, cluster.ErrNotServed).
type notServedError string

func (e notServedError) Error() string        { return string(e) }
func (e notServedError) Is(target error) bool { return target == cluster.ErrNotServed }

func (l *Reader) get(segments ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.conn.Timeout)
	defer cancel()
	res := l.conn.Client.Get().AbsPath(segments...).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error() // the error with the Status the server sent, if any
	}
	return body, nil
}

func (l *Reader) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

var forbiddenUser = regexp.MustCompile(`User "([^"]*)"`)

// describe turns a request error into a message that names the server, the resource and the
// object, never its contents.
func (l *Reader) describe(err error, resource, where string) error {
	described, unreachable := l.conn.Describe(err, "get", strings.TrimSpace(resource+" "+where), "")
	if unreachable {
		l.mu.Lock()
		if l.down == nil {
			l.down = described
		}
		l.mu.Unlock()
	}
	return described
}

// Describe turns a failed request (verb "get" or "list" of target) into an error that names
// the server and what the user can do, never object contents. scope completes target in
// the RBAC message (" in all namespaces"). unreachable reports a request that got no HTTP
// answer (refused, no route, DNS, TLS, timeout): later ones will fail the same way.
func (c *Connection) Describe(err error, verb, target, scope string) (described error, unreachable bool) {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsForbidden(err):
		who := "the kubeconfig user"
		if m := forbiddenUser.FindStringSubmatch(err.Error()); m != nil {
			who = fmt.Sprintf("user %q", m[1])
		} else if c.User != "" {
			who = fmt.Sprintf("kubeconfig user %q", c.User)
		}
		return fmt.Errorf("live cluster %s: forbidden: %s cannot %s %s%s (RBAC)", c.Server, who, verb, target, scope), false
	case apierrors.IsUnauthorized(err):
		who := "the kubeconfig credentials"
		if c.User != "" {
			who = fmt.Sprintf("the credentials of kubeconfig user %q", c.User)
		}
		return fmt.Errorf("live cluster %s: unauthorized: the server rejected %s (expired or wrong token or certificate?)", c.Server, who), false
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return fmt.Errorf("live cluster %s: %s %s: the server timed out", c.Server, verb, target), false
	case errors.As(err, &status):
		st := status.Status()
		return fmt.Errorf("live cluster %s: %s %s: HTTP %d %s: %s", c.Server, verb, target, st.Code, st.Reason, st.Message), false
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "getting credentials") { // a kubeconfig exec plugin failed
		return fmt.Errorf("live cluster %s: kubeconfig credentials: %s", c.Server, msg), false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		msg = fmt.Sprintf("no answer within %s", c.Timeout)
	}
	return fmt.Errorf("cluster %s unreachable: %s", c.Server, msg), true
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

// readOnlyTransport refuses every request but GET, so that nothing in this package can
// write to a cluster, whatever client code is added later.
type readOnlyTransport struct{ next http.RoundTripper }

func (t readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("live cluster reader is read-only: refusing %s %s", req.Method, req.URL.Path)
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go see through the wrapper (for connection management).
func (t readOnlyTransport) WrappedRoundTripper() http.RoundTripper { return t.next }
