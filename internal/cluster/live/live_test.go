package live

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestMain stops the test cluster if this binary started one (see internal/testcluster).
func TestMain(m *testing.M) { testcluster.Main(m) }

const testCRDs = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.odlm-render.io
spec:
  group: test.odlm-render.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.test.odlm-render.io
spec:
  group: test.odlm-render.io
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// recorder records the method and path of every request that leaves a Live reader.
type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
		return next.RoundTrip(req)
	})
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestLiveReadsObjects(t *testing.T) {
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	gadget := "g-" + ns // cluster-scoped: unique per run, as the cluster may be reused
	c.Apply(t, testCRDs)
	c.Apply(t, fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: %[1]s}
data: {storageClass: fast, replicas: "3"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: %[1]s}
type: Opaque
data: {password: czNjcjN0}
---
apiVersion: test.odlm-render.io/v1alpha1
kind: Widget
metadata: {name: w1, namespace: %[1]s}
spec:
  size: 3
  ratio: 1.5
  enabled: true
  nothing: null
  tags: [a, 2]
---
apiVersion: test.odlm-render.io/v1alpha1
kind: Gadget
metadata: {name: %[2]s}
spec: {color: blue}
`, ns, gadget))

	rec := &recorder{}
	live, err := NewReader(Options{Kubeconfig: c.AdminKubeconfig(), WrapTransport: rec.wrap})
	require.NoError(t, err)
	assert.Equal(t, c.Server(), live.Server())

	tests := []struct {
		name                            string
		apiVersion, kind, namespace, id string
		path                            []string
		want                            any
		found                           bool
	}{
		{"configmap value", "v1", "ConfigMap", ns, "settings", []string{"data", "storageClass"}, "fast", true},
		{"configmap numeric string stays a string", "v1", "ConfigMap", ns, "settings", []string{"data", "replicas"}, "3", true},
		{"secret data (base64, as the API has it)", "v1", "Secret", ns, "creds", []string{"data", "password"}, "czNjcjN0", true},
		{"custom resource integer", "test.odlm-render.io/v1alpha1", "Widget", ns, "w1", []string{"spec", "size"}, json.Number("3"), true},
		{"custom resource decimal", "test.odlm-render.io/v1alpha1", "Widget", ns, "w1", []string{"spec", "ratio"}, json.Number("1.5"), true},
		{"custom resource bool", "test.odlm-render.io/v1alpha1", "Widget", ns, "w1", []string{"spec", "enabled"}, true, true},
		{"custom resource list", "test.odlm-render.io/v1alpha1", "Widget", ns, "w1", []string{"spec", "tags"}, []any{"a", json.Number("2")}, true},
		{"cluster-scoped custom resource ignores the namespace", "test.odlm-render.io/v1alpha1", "Gadget", "elsewhere", gadget, []string{"spec", "color"}, "blue", true},
		{"cluster-scoped built-in kind", "v1", "Namespace", "", ns, []string{"metadata", "name"}, ns, true},
		{"missing configmap", "v1", "ConfigMap", ns, "nope", nil, nil, false},
		{"missing secret", "v1", "Secret", ns, "nope", nil, nil, false},
		{"missing custom resource", "test.odlm-render.io/v1alpha1", "Widget", ns, "nope", nil, nil, false},
		{"missing cluster-scoped object", "test.odlm-render.io/v1alpha1", "Gadget", "", "nope-" + ns, nil, nil, false},
		{"namespace that does not exist", "v1", "ConfigMap", ns + "-absent", "settings", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, found, err := live.Get(tt.apiVersion, tt.kind, tt.namespace, tt.id)
			require.NoError(t, err)
			require.Equal(t, tt.found, found)
			if !found {
				assert.Nil(t, obj)
				return
			}
			assert.Equal(t, tt.kind, obj["kind"])
			assert.Equal(t, tt.want, lookup(t, obj, tt.path))
		})
	}

	t.Run("the whole value tree has only project value types", func(t *testing.T) {
		obj, found, err := live.Get("test.odlm-render.io/v1alpha1", "Widget", ns, "w1")
		require.NoError(t, err)
		require.True(t, found)
		assertValueTree(t, obj)
		spec := obj["spec"].(map[string]any)
		assert.Contains(t, spec, "nothing")
		assert.Nil(t, spec["nothing"])
	})

	t.Run("only GET requests, one discovery request per group-version", func(t *testing.T) {
		reqs := rec.requests()
		require.NotEmpty(t, reqs)
		discovery := map[string]int{}
		for _, r := range reqs {
			assert.True(t, strings.HasPrefix(r, "GET "), r)
			if p := strings.TrimPrefix(r, "GET "); p == "/api/v1" || strings.Count(p, "/") == 3 && strings.HasPrefix(p, "/apis/") {
				discovery[p]++
			}
		}
		assert.Equal(t, map[string]int{"/api/v1": 1, "/apis/test.odlm-render.io/v1alpha1": 1}, discovery)
	})
}

func TestLiveKindErrors(t *testing.T) {
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	live, err := NewReader(Options{Kubeconfig: c.AdminKubeconfig()})
	require.NoError(t, err)

	tests := []struct {
		name                            string
		apiVersion, kind, namespace, id string
		wantErr                         string
	}{
		{"unknown group", "nowhere.example.com/v1", "Thing", ns, "x", "the cluster does not serve nowhere.example.com/v1 Thing"},
		{"unknown kind in a served group-version", "v1", "Widget", ns, "x", "the cluster does not serve v1 Widget"},
		{"unserved version", "apps/v1beta9", "Deployment", ns, "x", "the cluster does not serve apps/v1beta9 Deployment"},
		{"namespaced kind without a namespace", "v1", "ConfigMap", "", "x", `v1 ConfigMap "x" is namespaced: a namespace is needed`},
		{"path-changing name", "v1", "ConfigMap", ns, "../secrets", `invalid name "../secrets"`},
		{"empty name", "v1", "ConfigMap", ns, "", "empty name"},
		{"bad apiVersion", "a/b/c", "ConfigMap", ns, "x", `apiVersion "a/b/c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, found, err := live.Get(tt.apiVersion, tt.kind, tt.namespace, tt.id)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), c.Server())
			assert.False(t, found)
			assert.Nil(t, obj)
		})
	}
}

func TestLiveRBAC(t *testing.T) {
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	other := c.Namespace(t)
	for _, n := range []string{ns, other} {
		c.Apply(t, fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: %[1]s}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: %[1]s}
stringData: {password: do-not-leak-me}
`, n))
	}
	c.GrantReader(t, ns, []string{"configmaps"}, []string{"get"})

	live, err := NewReader(Options{Kubeconfig: c.ReaderKubeconfig()})
	require.NoError(t, err)

	tests := []struct {
		name, kind, namespace, id string
		found                     bool
		wantErr                   string
	}{
		{"granted configmap", "ConfigMap", ns, "settings", true, ""},
		{"granted kind, missing object", "ConfigMap", ns, "nope", false, ""},
		{"secret is forbidden", "Secret", ns, "creds", false, fmt.Sprintf(`live cluster %s: forbidden: user "reader" cannot get secrets %s/creds (RBAC)`, c.Server(), ns)},
		{"configmap in another namespace is forbidden", "ConfigMap", other, "settings", false, fmt.Sprintf(`forbidden: user "reader" cannot get configmaps %s/settings (RBAC)`, other)},
		{"cluster-scoped kind is forbidden", "Namespace", "", ns, false, fmt.Sprintf(`forbidden: user "reader" cannot get namespaces %s (RBAC)`, ns)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, found, err := live.Get("v1", tt.kind, tt.namespace, tt.id)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "do-not-leak-me")
				assert.NotContains(t, err.Error(), "ZG8tbm90LWxlYWstbWU") // base64 of it
				assert.Nil(t, obj)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.found, found)
		})
	}
}

func TestLiveUnauthorized(t *testing.T) {
	c := testcluster.Start(t)
	kubeconfig := testcluster.WriteKubeconfig(t, c.Server(), "not-a-valid-token")
	live, err := NewReader(Options{Kubeconfig: kubeconfig})
	require.NoError(t, err)
	_, found, err := live.Get("v1", "ConfigMap", "default", "x")
	require.Error(t, err)
	assert.False(t, found)
	assert.Contains(t, err.Error(), fmt.Sprintf(`live cluster %s: unauthorized: the server rejected the credentials of kubeconfig user "u"`, c.Server()))
	assert.NotContains(t, err.Error(), "not-a-valid-token")
}

// The tests below need no cluster.

func TestLiveUnreachable(t *testing.T) {
	// a port nothing listens on: connection refused
	refused := testcluster.UnreachableKubeconfig(t)
	// a port that accepts connections but never answers (no TLS handshake)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	silent := testcluster.WriteKubeconfig(t, "https://"+l.Addr().String(), "t")

	tests := []struct {
		name       string
		kubeconfig string
		timeout    time.Duration
		within     time.Duration
		wantErr    string
	}{
		{"connection refused", refused, 0, 3 * time.Second, "connection refused"},
		{"no answer", silent, time.Second, 3 * time.Second, "unreachable: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live, err := NewReader(Options{Kubeconfig: tt.kubeconfig, Timeout: tt.timeout})
			require.NoError(t, err)
			start := time.Now()
			_, found, err := live.Get("v1", "ConfigMap", "default", "x")
			elapsed := time.Since(start)
			require.Error(t, err)
			assert.False(t, found)
			assert.Less(t, elapsed, tt.within)
			assert.Contains(t, err.Error(), "cluster "+live.Server()+" unreachable: ")
			assert.Contains(t, err.Error(), tt.wantErr)

			// later reads fail at once with the same error
			start = time.Now()
			_, _, err2 := live.Get("v1", "Secret", "default", "y")
			assert.Less(t, time.Since(start), 100*time.Millisecond)
			assert.Equal(t, err, err2)
		})
	}
}

func TestNewLiveKubeconfigErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("{not: [yaml"), 0o600))
	good := testcluster.UnreachableKubeconfig(t)

	tests := []struct {
		name    string
		opts    Options
		wantErr []string
	}{
		{"missing file", Options{Kubeconfig: filepath.Join(dir, "absent")}, []string{"live cluster: kubeconfig " + filepath.Join(dir, "absent"), "no such file"}},
		{"not a kubeconfig", Options{Kubeconfig: garbage}, []string{"live cluster: kubeconfig " + garbage}},
		{"unknown context", Options{Kubeconfig: good, Context: "nope"}, []string{`context "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live, err := NewReader(tt.opts)
			require.Error(t, err)
			assert.Nil(t, live)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	t.Run("no request before the first Get", func(t *testing.T) {
		rec := &recorder{}
		_, err := NewReader(Options{Kubeconfig: good, WrapTransport: rec.wrap})
		require.NoError(t, err)
		assert.Empty(t, rec.requests())
	})
}

func TestReadOnlyTransport(t *testing.T) {
	var sent []string
	rt := readOnlyTransport{roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		sent = append(sent, req.Method)
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
	})}
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions} {
		t.Run(method, func(t *testing.T) {
			req, err := http.NewRequest(method, "https://127.0.0.1:1/api/v1/namespaces/a/configmaps/b", http.NoBody)
			require.NoError(t, err)
			resp, err := rt.RoundTrip(req)
			if method == http.MethodGet {
				require.NoError(t, err)
				_ = resp.Body.Close()
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "read-only: refusing "+method)
		})
	}
	assert.Equal(t, []string{http.MethodGet}, sent)
}

func lookup(t *testing.T, obj map[string]any, path []string) any {
	t.Helper()
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%v: not an object at %q", path, p)
		v = m[p]
	}
	return v
}

func assertValueTree(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			assertValueTree(t, e)
		}
	case []any:
		for _, e := range x {
			assertValueTree(t, e)
		}
	case string, bool, nil, json.Number:
	default:
		t.Errorf("unexpected value type %T", v)
	}
}

func TestLiveCredentialPluginFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: "false", interactiveMode: Never}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`), 0o600))
	live, err := NewReader(Options{Kubeconfig: path})
	require.NoError(t, err)
	_, found, err := live.Get("v1", "ConfigMap", "default", "x")
	require.Error(t, err)
	assert.False(t, found)
	assert.Contains(t, err.Error(), "live cluster https://127.0.0.1:1: kubeconfig credentials: getting credentials")
}
