package live

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// The guards below keep a read from a hostile API server bounded and quiet: it can make
// odlm-render neither write, nor send its credentials elsewhere, nor hold unbounded
// memory, nor print what it sends.

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

// limitTransport bounds every response body to max bytes: client-go reads a body into
// memory whole, so an endless (or decompressed: the body here is after gzip) body would
// exhaust it. Reading past max fails with a responseTooLargeError.
type limitTransport struct {
	next http.RoundTripper
	max  int64
}

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	body := &limitedBody{body: resp.Body, max: t.max}
	if resp.ContentLength > t.max { // announced too large: not worth reading
		body.err = &responseTooLargeError{t.max}
	}
	resp.Body = body
	return resp, nil
}

// WrappedRoundTripper lets client-go see through the wrapper (for connection management).
func (t limitTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

type limitedBody struct {
	body      io.ReadCloser
	max, read int64
	err       error // once set, every read fails with it
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if room := b.max - b.read + 1; int64(len(p)) > room {
		p = p[:room] // one byte more than allowed tells a body that is too large
	}
	n, err := b.body.Read(p)
	b.read += int64(n)
	if b.read > b.max {
		b.err = &responseTooLargeError{b.max}
		return n - int(b.read-b.max), b.err
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }

// responseTooLargeError is a response body longer than the limit.
type responseTooLargeError struct{ limit int64 }

func (e *responseTooLargeError) Error() string {
	return "the response exceeds the limit of " + fileread.ByteSize(e.limit)
}

// refuseRedirect is the HTTP client's CheckRedirect: it follows no redirect. An API server
// has no reason to redirect a read, and client-go adds the bearer token to every request,
// so a redirect would carry it to any host, even over plain HTTP. The error names the
// target's scheme and host only: its path and query may carry anything.
func refuseRedirect(req *http.Request, _ []*http.Request) error {
	to := url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}
	return &redirectError{to: to.String()}
}

type redirectError struct{ to string }

func (e *redirectError) Error() string {
	return "refusing to follow a redirect to " + e.to + " (an API server does not redirect reads)"
}

// refusePlugins refuses a kubeconfig user with a credential plugin: a command (exec) or a
// provider (auth-provider) the kubeconfig names, which would run or send requests of its
// own on a kubeconfig's say-so.
func refusePlugins(user string, info *clientcmdapi.AuthInfo) error {
	if info == nil {
		return nil
	}
	kind := ""
	switch {
	case info.Exec != nil:
		kind = "an exec"
	case info.AuthProvider != nil:
		kind = "an auth-provider"
	default:
		return nil
	}
	who := "the kubeconfig user"
	if user != "" {
		who = fmt.Sprintf("kubeconfig user %q", user)
	}
	return fmt.Errorf("%s has %s credential plugin, which is refused here: the sidecar's administrator must allow credential plugins", who, kind)
}

var silenceOnce sync.Once

// silenceClientGoLogs sends client-go's log lines (klog: failed body reads, throttling,
// retries) nowhere, for the whole process: they would reach stderr, which users and Argo
// CD read, and they may carry URLs and object contents. Errors reach the user as this
// package's messages instead. The zero logr.Logger discards everything.
func silenceClientGoLogs() {
	silenceOnce.Do(func() { klog.SetLogger(klog.Logger{}) })
}
