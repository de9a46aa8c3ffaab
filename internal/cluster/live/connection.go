package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// DefaultTimeout bounds each request to a live cluster when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// The limits below bound what an API server can make a read cost: the server reached with
// --live is untrusted input (in the Argo CD sidecar, any tenant may run it).
const (
	// DefaultDeadline bounds all the requests of a Connection, from its first one, when
	// Options.Deadline is 0: a server answering each request just within the timeout, or
	// paging a LIST forever, cannot hold a read longer.
	DefaultDeadline = 2 * time.Minute
	// DefaultMaxResponseBytes bounds the body of each response (discovery, GET, LIST page)
	// when Options.MaxResponseBytes is 0: client-go reads a body into memory whole.
	DefaultMaxResponseBytes = 64 << 20
	// DefaultMaxListPages bounds the pages of one LIST when Options.MaxListPages is 0.
	DefaultMaxListPages = 1000
	// DefaultMaxListObjects bounds the objects of one LIST when Options.MaxListObjects is 0.
	DefaultMaxListObjects = 100000
	// DefaultMaxListBytes bounds the bytes of all the pages of one LIST when
	// Options.MaxListBytes is 0: pages and objects alone would let a LIST hold
	// MaxListPages responses of MaxResponseBytes each in memory.
	DefaultMaxListBytes = 256 << 20
)

// dialTimeout bounds connecting to the API server, so that an unreachable cluster fails fast.
const dialTimeout = 3 * time.Second

// Options says which cluster a Reader reads from, and the limits of the read.
type Options struct {
	// Kubeconfig is the kubeconfig file; empty means what kubectl uses ($KUBECONFIG, then
	// ~/.kube/config, then the in-cluster service account).
	Kubeconfig string
	// Context is the kubeconfig context; empty means the current context.
	Context string
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration
	// Deadline bounds all requests together, from the first one on (default DefaultDeadline).
	Deadline time.Duration
	// MaxResponseBytes bounds each response body (default DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// MaxListPages bounds the pages of one LIST (default DefaultMaxListPages).
	MaxListPages int
	// MaxListObjects bounds the objects of one LIST (default DefaultMaxListObjects).
	MaxListObjects int
	// MaxListBytes bounds the response bytes of one LIST, all pages together (default
	// DefaultMaxListBytes).
	MaxListBytes int64
	// RefuseCredentialPlugins refuses a kubeconfig whose user runs a credential plugin
	// (exec or auth-provider): where the kubeconfig is not the operator's own (a shared
	// sidecar), a plugin is a command run on its say-so.
	RefuseCredentialPlugins bool

	// WrapTransport, for tests, wraps the HTTP transport under the read-only guard, so it
	// sees exactly the requests that leave the process.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// ListPageSize is how many objects one LIST page asks for (0: DefaultListPageSize).
	ListPageSize int
}

// limits are Options' limits with their defaults applied.
type limits struct {
	deadline         time.Duration
	maxResponseBytes int64
	maxListPages     int
	maxListObjects   int
	maxListBytes     int64
}

func (o Options) limits() limits {
	return limits{
		deadline:         orDefault(o.Deadline, DefaultDeadline),
		maxResponseBytes: orDefault(o.MaxResponseBytes, DefaultMaxResponseBytes),
		maxListPages:     orDefault(o.MaxListPages, DefaultMaxListPages),
		maxListObjects:   orDefault(o.MaxListObjects, DefaultMaxListObjects),
		maxListBytes:     orDefault(o.MaxListBytes, DefaultMaxListBytes),
	}
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Connection is a read-only REST client for the cluster of a kubeconfig: its transport
// refuses every method but GET (a LIST is a GET), follows no redirect and bounds every
// response body; its requests (get, List) share one deadline. The live reader and other
// read-only commands (odlm-render installed) share it.
type Connection struct {
	Server    string // the API server's URL
	User      string // the kubeconfig user, for messages
	Namespace string // the context's namespace ("default" when it names none)
	Timeout   time.Duration

	client rest.Interface
	limits limits

	startOnce sync.Once
	deadline  time.Time // set by the first request
}

// Connect loads the kubeconfig (as kubectl does when opts.Kubeconfig is empty) and prepares
// a client. It sends no request and runs no credential plugin.
func Connect(opts Options) (*Connection, error) {
	silenceClientGoLogs()
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "kubeconfig"
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
		where = "kubeconfig " + opts.Kubeconfig
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: opts.Context})
	user, authInfo := selectedUser(loader, opts.Context)
	if opts.RefuseCredentialPlugins {
		if err := refusePlugins(user, authInfo); err != nil {
			return nil, fmt.Errorf("live cluster: %s: %w", where, err)
		}
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, fmt.Errorf("live cluster: no %s found (set --kubeconfig or $KUBECONFIG, or create ~/.kube/config)", where)
		}
		return nil, fmt.Errorf("live cluster: %s: %w", where, err)
	}
	if opts.RefuseCredentialPlugins && (cfg.ExecProvider != nil || cfg.AuthProvider != nil) {
		// what would run, whichever way the loader found it
		return nil, fmt.Errorf("live cluster: %s: %w", where, refusePlugins(user, &clientcmdapi.AuthInfo{Exec: cfg.ExecProvider, AuthProvider: cfg.AuthProvider}))
	}
	namespace, _, err := loader.Namespace()
	if err != nil || namespace == "" {
		namespace = "default"
	}
	c := &Connection{Server: cfg.Host, User: user, Namespace: namespace, Timeout: orDefault(opts.Timeout, DefaultTimeout), limits: opts.limits()}
	if c.client, err = newClient(cfg, opts, c.Timeout, c.limits.maxResponseBytes); err != nil {
		return nil, fmt.Errorf("live cluster: %s: %w", where, err)
	}
	return c, nil
}

// selectedUser is the kubeconfig user of the context used (context, else the current one).
func selectedUser(loader clientcmd.ClientConfig, contextName string) (string, *clientcmdapi.AuthInfo) {
	raw, err := loader.RawConfig()
	if err != nil {
		return "", nil // ClientConfig reports it
	}
	if contextName == "" {
		contextName = raw.CurrentContext
	}
	c, ok := raw.Contexts[contextName]
	if !ok || c == nil {
		return "", nil
	}
	return c.AuthInfo, raw.AuthInfos[c.AuthInfo]
}

// newClient builds the REST client: the dynamic client's JSON-only, scheme-free one, on an
// HTTP client that follows no redirect, over a transport that sends GETs only and bounds
// every response body.
func newClient(cfg *rest.Config, opts Options, timeout time.Duration, maxResponseBytes int64) (rest.Interface, error) {
	cfg = dynamic.ConfigFor(cfg)
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
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return limitTransport{rt, maxResponseBytes} })
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnlyTransport{rt} })
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	httpClient := &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: refuseRedirect}
	// like the dynamic client: unversioned, absolute paths per request
	return rest.UnversionedRESTClientForConfigAndClient(cfg, httpClient)
}

// get GETs the object at the path of segments; target names it in errors ("configmaps
// ns/x"). See do for its errors.
func (c *Connection) get(target string, segments ...string) ([]byte, error) {
	return c.do(c.client.Get().AbsPath(segments...), "get", target)
}

// do sends req within the per-request timeout and the connection's deadline, and returns
// the response body. A request that broke a limit (deadline, response size, redirect) is a
// describedError naming the server, verb, target and limit; any other error is client-go's
// (with the Status the server sent, if any), for Describe.
func (c *Connection) do(req *rest.Request, verb, target string) ([]byte, error) {
	c.startOnce.Do(func() { c.deadline = time.Now().Add(c.limits.deadline) })
	if !time.Now().Before(c.deadline) {
		return nil, c.deadlineExceeded(verb, target)
	}
	whole, cancel := context.WithDeadline(context.Background(), c.deadline)
	defer cancel()
	ctx, cancelRequest := context.WithTimeout(whole, c.Timeout)
	defer cancelRequest()
	res := req.Do(ctx)
	body, err := res.Raw()
	if err == nil {
		return body, nil
	}
	err = res.Error() // the error with the Status the server sent, if any
	var tooLarge *responseTooLargeError
	var redirect *redirectError
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &tooLarge):
		return nil, c.refused(verb, target, tooLarge.Error())
	case errors.As(err, &redirect):
		return nil, c.refused(verb, target, redirect.Error())
	case errors.As(err, &status): // an answer, even if it came at the deadline
		return nil, err
	case whole.Err() != nil || !time.Now().Before(c.deadline):
		return nil, c.deadlineExceeded(verb, target)
	}
	return nil, err
}

func (c *Connection) deadlineExceeded(verb, target string) error {
	return c.refused(verb, target, fmt.Sprintf("the whole live read exceeded its deadline of %s", c.limits.deadline))
}

// refused describes a failed request: the server, the verb, the target and why.
func (c *Connection) refused(verb, target, why string) error {
	return describedError(fmt.Sprintf("live cluster %s: %s %s: %s", c.Server, verb, target, why))
}

// describedError is a failed request that this package already described (a limit, a
// refused redirect, a response that is not a list): Describe passes it through.
type describedError string

func (e describedError) Error() string { return string(e) }

// ListRequest is one LIST for Connection.List.
type ListRequest struct {
	Segments []string // the collection's path, like AbsPath's
	Resource string   // for messages: "configmaps", "subscriptions.operators.coreos.com"
	Scope    string   // for messages: " in all namespaces", " in namespace NS"
	PageSize int      // objects asked for per page (the limit parameter)
	// LabelSelector, when set, is sent as the labelSelector parameter ("key=value"): the
	// server sends only the objects it matches.
	LabelSelector string
}

// List LISTs a collection page by page (limit and continue) and returns the items of all
// pages, as decoded JSON values. It stops at MaxListPages pages, MaxListObjects items or
// MaxListBytes bytes, and when the server sends the same continue token twice: a server
// can otherwise keep a LIST going forever. Errors are those of do, and a page that is not
// a JSON list.
func (c *Connection) List(r ListRequest) ([]any, error) {
	var items []any
	var size int64
	cont := ""
	for page := 1; ; page++ {
		if page > c.limits.maxListPages {
			return nil, c.refused("list", r.Resource+r.Scope, fmt.Sprintf("more than %d pages", c.limits.maxListPages))
		}
		req := c.client.Get().AbsPath(r.Segments...).Param("limit", strconv.Itoa(r.PageSize))
		if r.LabelSelector != "" {
			req = req.Param("labelSelector", r.LabelSelector)
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := c.do(req, "list", r.Resource+r.Scope)
		if err != nil {
			return nil, err
		}
		if size += int64(len(body)); size > c.limits.maxListBytes {
			return nil, c.refused("list", r.Resource+r.Scope, "the pages exceed the limit of "+fileread.ByteSize(c.limits.maxListBytes))
		}
		pageItems, next, ok := decodeListPage(body)
		if !ok {
			return nil, c.refused("list", r.Resource+r.Scope, "the response is not a list")
		}
		if items = append(items, pageItems...); len(items) > c.limits.maxListObjects {
			return nil, c.refused("list", r.Resource+r.Scope, fmt.Sprintf("more than %d objects", c.limits.maxListObjects))
		}
		switch next {
		case "":
			return items, nil
		case cont:
			return nil, c.refused("list", r.Resource+r.Scope, "the server sent the same continue token twice")
		}
		cont = next
	}
}

// decodeListPage reads a LIST page's items and continue token.
func decodeListPage(body []byte) (items []any, cont string, ok bool) {
	v, err := manifest.DecodeJSONValue(body)
	page, _ := v.(map[string]any)
	if err != nil || page == nil {
		return nil, "", false
	}
	items, _ = page["items"].([]any)
	cont, _ = manifest.Get(page, "metadata", "continue").(string)
	return items, cont, true
}

// forbiddenError is a request RBAC refused: errors.Is(err, cluster.ErrForbidden).
type forbiddenError string

func (e forbiddenError) Error() string        { return string(e) }
func (e forbiddenError) Is(target error) bool { return target == cluster.ErrForbidden }

var forbiddenUser = regexp.MustCompile(`User "([^"]*)"`)

// Describe turns a failed request (verb "get" or "list" of target) into an error that names
// the server and what the user can do, never object contents. scope completes target in
// the RBAC message (" in all namespaces"). unreachable reports a request that got no HTTP
// answer (refused, no route, DNS, TLS, timeout): later ones will fail the same way. An
// error this package already described (a limit) is returned as is.
func (c *Connection) Describe(err error, verb, target, scope string) (described error, unreachable bool) {
	var status apierrors.APIStatus
	var done describedError
	switch {
	case errors.As(err, &done):
		return err, false
	case apierrors.IsForbidden(err):
		who := "the kubeconfig user"
		if m := forbiddenUser.FindStringSubmatch(err.Error()); m != nil {
			who = fmt.Sprintf("user %q", m[1])
		} else if c.User != "" {
			who = fmt.Sprintf("kubeconfig user %q", c.User)
		}
		return forbiddenError(fmt.Sprintf("live cluster %s: forbidden: %s cannot %s %s%s (RBAC)", c.Server, who, verb, target, scope)), false
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
