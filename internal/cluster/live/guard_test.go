package live

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// The tests below play a hostile API server on loopback: an API server reached with --live
// is untrusted input (the Argo CD sidecar is shared by every tenant).

// serveDiscovery answers the discovery of v1 (configmaps, namespaced) and reports whether
// the request was one.
func serveDiscovery(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/api/v1" {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`)
	return true
}

// hostileServer is an API server on loopback (TLS) that serves v1's discovery and hands
// every other request to h.
func hostileServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !serveDiscovery(w, r) {
			h(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// requestCounter counts the requests a server received, and those carrying Authorization.
type requestCounter struct {
	all, authorized atomic.Int64
}

func (c *requestCounter) handler(w http.ResponseWriter, r *http.Request) {
	c.all.Add(1)
	if r.Header.Get("Authorization") != "" {
		c.authorized.Add(1)
	}
	w.WriteHeader(http.StatusNotFound)
}

func TestLiveRefusesRedirectsAndSendsNothingToTheirTarget(t *testing.T) {
	type call func(*Reader) error
	get := func(l *Reader) error { _, _, err := l.Get("v1", "ConfigMap", "default", "x"); return err }
	list := func(l *Reader) error { _, err := l.List("v1", "ConfigMap", ""); return err }
	tests := []struct {
		name      string
		code      int
		discovery bool // redirect the discovery request too
		call      call
		verb      string
	}{
		{"302 on a get", http.StatusFound, false, get, "get configmaps default/x"},
		{"301 on a get", http.StatusMovedPermanently, false, get, "get configmaps default/x"},
		{"303 on a list", http.StatusSeeOther, false, list, "list configmaps in all namespaces"},
		{"307 on a list", http.StatusTemporaryRedirect, false, list, "list configmaps in all namespaces"},
		{"308 on discovery", http.StatusPermanentRedirect, true, get, "get discovery of v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := &requestCounter{}
			target := httptest.NewServer(http.HandlerFunc(other.handler)) // plain HTTP, another port
			defer target.Close()
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tt.discovery && serveDiscovery(w, r) {
					return
				}
				http.Redirect(w, r, target.URL+r.URL.Path+"?token=from-the-query", tt.code)
			}))
			defer srv.Close()
			l, err := NewReader(Options{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "bearer-secret")})
			require.NoError(t, err)

			err = tt.call(l)
			require.Error(t, err)
			assert.Zero(t, other.all.Load(), "requests received by the redirect's target (%d with Authorization)", other.authorized.Load())
			msg := err.Error()
			assert.Contains(t, msg, "live cluster "+srv.URL+": "+tt.verb+": ")
			assert.Contains(t, msg, "refusing to follow a redirect to "+target.URL)
			assert.NotContains(t, msg, "from-the-query")
			assert.NotContains(t, msg, "bearer-secret")
		})
	}
}

// endless writes prefix then filler until the client stops reading (or, so that a test of
// unfixed code ends, until max bytes), and records how much it wrote.
type endless struct {
	prefix  string
	max     int64
	written atomic.Int64
	done    sync.WaitGroup
}

func (e *endless) serve(w http.ResponseWriter) {
	e.done.Add(1)
	defer e.done.Done()
	w.Header().Set("Content-Type", "application/json")
	n, err := io.WriteString(w, e.prefix)
	e.written.Add(int64(n))
	chunk := []byte(strings.Repeat("x", 64<<10))
	for err == nil && e.written.Load() < e.max {
		n, err = w.Write(chunk)
		e.written.Add(int64(n))
	}
}

func TestLiveBoundsEveryResponseBody(t *testing.T) {
	const limit = 1 << 20
	big := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"k":"` + strings.Repeat("y", 4<<20) + `"}}`
	get := func(l *Reader) error { _, _, err := l.Get("v1", "ConfigMap", "default", "x"); return err }
	list := func(l *Reader) error { _, err := l.List("v1", "ConfigMap", "default"); return err }
	tests := []struct {
		name      string
		discovery bool // the discovery response is the hostile one
		serve     func(w http.ResponseWriter, e *endless)
		call      func(*Reader) error
		want      string
	}{
		{"an object larger than the limit", false, func(w http.ResponseWriter, _ *endless) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, big)
		}, get, "get configmaps default/x"},
		{"an endless object", false, func(w http.ResponseWriter, e *endless) {
			e.prefix = `{"kind":"ConfigMap","data":{"k":"`
			e.serve(w)
		}, get, "get configmaps default/x"},
		{"an endless discovery", true, func(w http.ResponseWriter, e *endless) {
			e.prefix = `{"kind":"APIResourceList","groupVersion":"`
			e.serve(w)
		}, get, "get discovery of v1"},
		{"an endless list page", false, func(w http.ResponseWriter, e *endless) {
			e.prefix = `{"kind":"ConfigMapList","items":[{"metadata":{"name":"`
			e.serve(w)
		}, list, "list configmaps in namespace default"},
		{"a gzip bomb", false, func(w http.ResponseWriter, _ *endless) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			z := gzip.NewWriter(w)
			_, _ = io.WriteString(z, big)
			_ = z.Close()
		}, get, "get configmaps default/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &endless{max: 256 << 20}
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tt.discovery && serveDiscovery(w, r) {
					return
				}
				tt.serve(w, e)
			}))
			defer srv.Close()
			l, err := NewReader(Options{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "t"), MaxResponseBytes: limit, Timeout: 5 * time.Second})
			require.NoError(t, err)

			err = tt.call(l)
			require.Error(t, err)
			assert.Equal(t, fmt.Sprintf("live cluster %s: %s: the response exceeds the limit of 1 MiB", srv.URL, tt.want), err.Error())
			srv.CloseClientConnections()
			e.done.Wait()
			assert.Less(t, e.written.Load(), int64(32<<20), "the client stopped reading soon after the limit")
		})
	}
}

func TestLiveBoundsEveryList(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		perPage   int
		sameToken bool
		wantPages int64
		want      string
	}{
		{"a continue token on every page", Options{MaxListPages: 5}, 1, false, 5, "more than 5 pages"},
		{"too many objects", Options{MaxListObjects: 7}, 3, false, 3, "more than 7 objects"},
		{"the same continue token again", Options{}, 1, true, 2, "the server sent the same continue token twice"},
		{"too many bytes", Options{MaxListBytes: 100}, 1, false, 1, "the pages exceed the limit of 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages atomic.Int64
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := pages.Add(1)
				token := fmt.Sprintf("page-%d", n)
				if tt.sameToken {
					token = "again"
				}
				if n >= 300 { // so that a test of unfixed code ends
					token = ""
				}
				var items []string
				for i := 0; i < tt.perPage; i++ {
					items = append(items, fmt.Sprintf(`{"metadata":{"name":"cm-%d-%d","namespace":"default"}}`, n, i))
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"kind":"ConfigMapList","metadata":{"continue":%q},"items":[%s]}`, token, strings.Join(items, ","))
			})
			tt.opts.Kubeconfig = testcluster.WriteKubeconfig(t, srv.URL, "t")
			l, err := NewReader(tt.opts)
			require.NoError(t, err)

			objs, err := l.List("v1", "ConfigMap", "")
			require.Error(t, err)
			assert.Nil(t, objs)
			assert.Equal(t, fmt.Sprintf("live cluster %s: list configmaps in all namespaces: %s", srv.URL, tt.want), err.Error())
			assert.Equal(t, tt.wantPages, pages.Load(), "pages requested")
		})
	}
}

func TestLiveDeadlineBoundsTheWholeRead(t *testing.T) {
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond) // each answer within the per-request timeout
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q}}`, r.URL.Path)
	})
	l, err := NewReader(Options{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "t"), Timeout: 5 * time.Second, Deadline: time.Second})
	require.NoError(t, err)
	time.Sleep(1200 * time.Millisecond) // the deadline runs from the first request, not from NewReader

	start := time.Now()
	var firstErr error
	for i := 0; i < 10 && firstErr == nil; i++ {
		_, _, firstErr = l.Get("v1", "ConfigMap", "default", fmt.Sprintf("cm-%d", i))
	}
	require.Error(t, firstErr, "ten reads of 300ms each, and a deadline of 1s")
	assert.Less(t, time.Since(start), 1500*time.Millisecond)
	assert.Regexp(t, `^live cluster `+srv.URL+`: get configmaps default/cm-[0-9]: the whole live read exceeded its deadline of 1s$`, firstErr.Error())

	start = time.Now()
	_, err = l.List("v1", "ConfigMap", "")
	assert.Less(t, time.Since(start), 50*time.Millisecond, "later requests fail at once")
	require.Error(t, err)
	assert.Equal(t, "live cluster "+srv.URL+": list configmaps in all namespaces: the whole live read exceeded its deadline of 1s", err.Error())
}

// captureStderr runs f with os.Stderr a pipe and returns what was written to it.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stderr
	os.Stderr = w
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	func() {
		defer func() { os.Stderr = saved }()
		f()
	}()
	require.NoError(t, w.Close())
	return <-got
}

// TestLiveClientGoLogsNothingOnStderr makes client-go log (klog): a body cut short, a body
// read after a refused redirect, a body over the limit. Stderr is the CLI's and Argo CD's,
// and log lines may carry URLs and object contents.
func TestLiveClientGoLogsNothingOnStderr(t *testing.T) {
	tests := []struct {
		name  string
		serve http.HandlerFunc
	}{
		{"a body cut short", func(w http.ResponseWriter, _ *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":\"secret-data\"")
			_ = buf.Flush()
			_ = conn.Close()
		}},
		{"a redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/x", http.StatusFound)
		}},
		{"a body over the limit", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"ConfigMap","data":{"k":"`+strings.Repeat("z", 2<<20)+`"}}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hostileServer(t, tt.serve)
			var err error
			stderr := captureStderr(t, func() {
				var l *Reader
				l, err = NewReader(Options{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "t"), MaxResponseBytes: 1 << 20})
				if err == nil {
					_, _, err = l.Get("v1", "ConfigMap", "default", "x")
				}
			})
			require.Error(t, err)
			assert.Empty(t, stderr)
		})
	}
}

// pluginKubeconfig writes a kubeconfig with two contexts: "plugin", whose user "alice" has
// the credential plugin user (exec: or auth-provider:), and "token", whose user "bob" has
// a bearer token; current is the current context.
func pluginKubeconfig(t *testing.T, server, plugin, current string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: alice
  user:
%s
- name: bob
  user: {token: t}
contexts:
- name: plugin
  context: {cluster: c, user: alice}
- name: token
  context: {cluster: c, user: bob}
current-context: %s
`, server, plugin, current)), 0o600))
	return path
}

func TestLiveCredentialPluginsCanBeRefused(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "plugin.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho ran > '"+marker+"'\nexit 1\n"), 0o755))
	exec := fmt.Sprintf("    exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: Never}", script)
	authProvider := "    auth-provider: {name: oidc, config: {idp-issuer-url: \"https://127.0.0.1:1\", client-id: \"x\", id-token: \"y\"}}"
	srv := hostileServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })

	tests := []struct {
		name             string
		plugin, current  string
		context          string
		refused          bool
		wantErr, notUser string
	}{
		{"exec plugin of the current context", exec, "plugin", "", true, `kubeconfig user "alice" has an exec credential plugin`, ""},
		{"auth-provider of the current context", authProvider, "plugin", "", true, `kubeconfig user "alice" has an auth-provider credential plugin`, ""},
		{"exec plugin of the context asked for", exec, "token", "plugin", true, `kubeconfig user "alice" has an exec credential plugin`, ""},
		{"another context's plugin does not matter", exec, "plugin", "token", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := pluginKubeconfig(t, srv.URL, tt.plugin, tt.current)
			l, err := NewReader(Options{Kubeconfig: path, Context: tt.context, RefuseCredentialPlugins: true})
			if tt.refused {
				require.Error(t, err)
				assert.Nil(t, l)
				assert.Contains(t, err.Error(), "live cluster: kubeconfig "+path+": "+tt.wantErr)
				assert.Contains(t, err.Error(), "the sidecar's administrator must allow credential plugins")
			} else {
				require.NoError(t, err)
				_, found, err := l.Get("v1", "ConfigMap", "default", "x")
				require.NoError(t, err)
				assert.False(t, found)
			}
			assert.NoFileExists(t, marker, "the plugin never ran")
		})
	}

	t.Run("allowed by default: the plugin runs as kubectl would run it", func(t *testing.T) {
		l, err := NewReader(Options{Kubeconfig: pluginKubeconfig(t, srv.URL, exec, "plugin")})
		require.NoError(t, err)
		_, _, err = l.Get("v1", "ConfigMap", "default", "x")
		require.Error(t, err)
		assert.FileExists(t, marker)
	})
}
func TestLiveLimitsHaveDefaults(t *testing.T) {
	c, err := Connect(Options{Kubeconfig: testcluster.UnreachableKubeconfig(t)})
	require.NoError(t, err)
	assert.Equal(t, DefaultTimeout, c.Timeout)
	assert.Equal(t, DefaultDeadline, c.limits.deadline)
	assert.Equal(t, int64(DefaultMaxResponseBytes), c.limits.maxResponseBytes)
	assert.Equal(t, DefaultMaxListPages, c.limits.maxListPages)
	assert.Equal(t, DefaultMaxListObjects, c.limits.maxListObjects)
	assert.Equal(t, int64(DefaultMaxListBytes), c.limits.maxListBytes)
	assert.Equal(t, int64(64<<20), int64(DefaultMaxResponseBytes))
}

func TestLimitTransportAllowsExactlyTheLimit(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		contentLength int64
		wantErr       bool
	}{
		{"at the limit", "0123456789", 10, false},
		{"at the limit, length unknown", "0123456789", -1, false},
		{"one byte over", "0123456789a", 11, true},
		{"one byte over, length unknown", "0123456789a", -1, true},
		{"announced over, not read", "", 1 << 30, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := 0
			rt := limitTransport{roundTripperFunc(func(req *http.Request) (*http.Response, error) {
				body := io.NopCloser(readCounter{strings.NewReader(tt.body), &read})
				return &http.Response{StatusCode: 200, Body: body, ContentLength: tt.contentLength, Request: req}, nil
			}), 10}
			req, err := http.NewRequest(http.MethodGet, "https://127.0.0.1:1/api/v1", http.NoBody)
			require.NoError(t, err)
			resp, err := rt.RoundTrip(req)
			require.NoError(t, err)
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			if !tt.wantErr {
				require.NoError(t, err)
				assert.Equal(t, tt.body, string(got))
				return
			}
			require.Error(t, err)
			assert.Equal(t, "the response exceeds the limit of 10 bytes", err.Error())
			assert.LessOrEqual(t, len(got), 10)
			assert.LessOrEqual(t, read, 11, "read at most one byte past the limit")
			_, err = resp.Body.Read(make([]byte, 1))
			assert.Error(t, err, "and fails on every later read")
		})
	}
}

type readCounter struct {
	r io.Reader
	n *int
}

func (c readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += n
	return n, err
}
