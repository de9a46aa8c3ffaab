package installed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

const olmCRDs = "../../testdata/installed/_live/olm-crds.yaml"

// applyWithStatus creates objects as the admin, then writes their status through the
// status subresource (as OLM does: the CRDs have one, so a create drops status).
func applyWithStatus(t *testing.T, c *testcluster.Cluster, docs string) {
	t.Helper()
	c.Apply(t, docs)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig())
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	plural := map[string]string{KindSubscription: "subscriptions", KindCSV: "clusterserviceversions", KindOperatorGroup: "operatorgroups"}
	for _, o := range decode(t, docs) {
		status, ok := o.Map["status"]
		if !ok {
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion())
		require.NoError(t, err)
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": o.APIVersion(), "kind": o.Kind(),
			"metadata": map[string]any{"name": o.Name(), "namespace": o.Namespace()},
			"status":   toPlain(status),
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = dyn.Resource(gv.WithResource(plural[o.Kind()])).Namespace(o.Namespace()).ApplyStatus(ctx, o.Name(), u, metav1.ApplyOptions{FieldManager: "olm", Force: true})
		cancel()
		require.NoError(t, err, "status of %s", o.Ref())
	}
}

// toPlain turns json.Number leaves into int64 or float64 for the unstructured client.
func toPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = toPlain(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = toPlain(e)
		}
		return l
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func readCRDs(t *testing.T) string {
	b, err := os.ReadFile(olmCRDs)
	require.NoError(t, err)
	return string(b)
}

type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
		r.mu.Unlock()
		return next.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestInstalledLiveListerReadsTheClusterWithPagedGETs(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	c.Apply(t, readCRDs(t))
	ops, watched := c.Namespace(t), c.Namespace(t)
	applyWithStatus(t, c, strings.NewReplacer("OPS", ops, "WATCHED", watched).Replace(`
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: og, namespace: OPS}
spec: {targetNamespaces: [OPS, WATCHED]}
status: {namespaces: [OPS, WATCHED]}
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: etcd, namespace: OPS}
spec: {channel: singlenamespace-alpha, name: etcd, source: community-operators, sourceNamespace: olm}
status: {installedCSV: etcdoperator.v0.9.4, currentCSV: etcdoperator.v0.9.4, state: AtLatestKnown}
---
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: etcdoperator.v0.9.4
  namespace: OPS
  annotations: {olm.targetNamespaces: "OPS,WATCHED", olm.operatorGroup: og}
spec:
  version: 0.9.4
  icon: [{base64data: AAAA, mediatype: image/png}]
status: {phase: Succeeded, reason: InstallSucceeded}
---
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: etcdoperator.v0.9.4
  namespace: WATCHED
  labels: {olm.copiedFrom: OPS}
spec: {version: 0.9.4}
status: {phase: Succeeded, reason: Copied}
`))

	rec := &recorder{}
	l, err := NewLiveLister(LiveOptions{Kubeconfig: c.AdminKubeconfig(), WrapTransport: rec.wrap})
	require.NoError(t, err)
	l.pageSize = 1
	assert.Equal(t, c.Server(), l.Server())
	state, rs, err := l.Read(true)
	require.NoError(t, err)
	assert.Empty(t, rs)
	require.Empty(t, state.Validate())
	assert.Contains(t, state.Namespaces, watched)

	items, rs := Compute(state, Options{Namespace: watched})
	for _, r := range rs { // other tests' objects are not this test's concern
		assert.NotContains(t, r.String(), ops)
	}
	var mine []Item // other tests' operators watching all namespaces may show too
	for _, it := range items {
		if it.InstallationNamespace() == ops {
			mine = append(mine, it)
		}
	}
	require.Len(t, mine, 1)
	it := mine[0]
	assert.Equal(t, "etcdoperator.v0.9.4", it.Name())
	assert.Equal(t, "singlenamespace-alpha", it.Channel())
	assert.Equal(t, "Succeeded", it.Phase(), "status read back through the status subresource")
	assert.Equal(t, "0.9.4", it.CurrentVersion)
	obj, _ := it.Object()
	assert.Equal(t, watched, obj.Namespace())
	assert.Nil(t, obj.Map["status"].(map[string]any)["clusterServiceVersion"].(map[string]any)["spec"].(map[string]any)["icon"])

	reqs := rec.requests()
	pages := map[string]int{}
	for _, r := range reqs {
		assert.True(t, strings.HasPrefix(r, "GET "), r)
		assert.Contains(t, r, "limit=1", r)
		pages[strings.SplitN(strings.TrimPrefix(r, "GET "), "?", 2)[0]]++
	}
	assert.Greater(t, pages["/apis/operators.coreos.com/v1alpha1/clusterserviceversions"], 1, "paginated: %v", reqs)
	assert.Greater(t, pages["/api/v1/namespaces"], 1)
	assert.Contains(t, pages, "/apis/operators.coreos.com/v1alpha1/subscriptions")
	assert.Contains(t, pages, "/apis/operators.coreos.com/v1/operatorgroups")
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

func TestInstalledLiveListerRBAC(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	c.Apply(t, readCRDs(t))
	l, err := NewLiveLister(LiveOptions{Kubeconfig: c.ReaderKubeconfig()})
	require.NoError(t, err)
	if _, _, err = l.Read(false); err != nil {
		assert.Contains(t, err.Error(), fmt.Sprintf(`live cluster %s: forbidden: user "reader" cannot list subscriptions.operators.coreos.com in all namespaces (RBAC)`, c.Server()))
	} else {
		t.Log("the reader was granted list by an earlier run on this (reused) cluster")
	}

	// list on the three OLM resources is enough; Namespaces are optional (a warning)
	c.GrantReader(t, "", []string{"subscriptions.operators.coreos.com", "clusterserviceversions.operators.coreos.com", "operatorgroups.operators.coreos.com"}, []string{"list"})
	require.Eventually(t, func() bool { _, _, err = l.Read(true); return err == nil }, 10*time.Second, 200*time.Millisecond, "%v", err)
	_, rs, err := l.Read(true)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Contains(t, rs[0].String(), `warning: live cluster `+c.Server()+`: forbidden: user "reader" cannot list namespaces in all namespaces (RBAC): operators watching all namespaces are shown only in the namespaces holding OLM objects`)
}

func TestInstalledLiveListerUnauthorizedAndUnreachable(t *testing.T) {
	t.Parallel()
	l, err := NewLiveLister(LiveOptions{Kubeconfig: testcluster.UnreachableKubeconfig(t), Timeout: 2 * time.Second})
	require.NoError(t, err)
	_, _, err = l.Read(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreachable")

	c := testcluster.Start(t)
	l, err = NewLiveLister(LiveOptions{Kubeconfig: testcluster.WriteKubeconfig(t, c.Server(), "not-a-valid-token")})
	require.NoError(t, err)
	_, _, err = l.Read(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unauthorized: the server rejected the credentials of kubeconfig user "u"`)
	assert.NotContains(t, err.Error(), "not-a-valid-token")
}

// A fake API server: no OLM (404), and a paginated built-in list whose items lack kind.
func TestInstalledLiveListerAgainstAFakeServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces" && r.URL.Query().Get("continue") == "":
			fmt.Fprint(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"continue":"next"},"items":[{"metadata":{"name":"a"}}]}`)
		case r.URL.Path == "/api/v1/namespaces":
			fmt.Fprint(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"b"}}]}`)
		case r.URL.Path == "/apis/operators.coreos.com/v1/operatorgroups":
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"operatorgroups.operators.coreos.com is forbidden: User \"alice\" cannot list resource \"operatorgroups\" in API group \"operators.coreos.com\" at the cluster scope"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"the server could not find the requested resource"}`)
		}
	}))
	defer srv.Close()
	l, err := NewLiveLister(LiveOptions{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "t")})
	require.NoError(t, err)
	_, _, err = l.Read(false)
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf("live cluster %s: the cluster does not serve operators.coreos.com/v1alpha1 subscriptions (is OLM installed?)", srv.URL), err.Error())

	_, err = l.list(resOperatorGroups)
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf(`live cluster %s: forbidden: user "alice" cannot list operatorgroups.operators.coreos.com in all namespaces (RBAC)`, srv.URL), err.Error())

	nss, err := l.list(resNamespaces)
	require.NoError(t, err)
	require.Len(t, nss, 2)
	assert.Equal(t, "Namespace", nss[1].Kind())
	assert.Equal(t, "v1", nss[1].APIVersion())
	assert.Equal(t, "b", nss[1].Name())
	assert.Equal(t, "default", l.Namespace())
}

// TestInstalledLiveListerBoundsAHostileServer: the API server reached with --live is
// untrusted (the Argo CD sidecar is shared by every tenant); the lister's LISTs are bounded
// like the live reader's.
func TestInstalledLiveListerBoundsAHostileServer(t *testing.T) {
	t.Parallel()
	page := func(w http.ResponseWriter, cont string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"SubscriptionList","apiVersion":"operators.coreos.com/v1alpha1","metadata":{"continue":%q},"items":[{"metadata":{"name":"s","namespace":"a"}}]}`, cont)
	}
	tests := []struct {
		name  string
		opts  LiveOptions
		serve func(w http.ResponseWriter, n int64)
		want  string
	}{
		{"a continue token on every page", LiveOptions{MaxListPages: 4}, func(w http.ResponseWriter, n int64) {
			page(w, fmt.Sprintf("page-%d", n))
		}, "more than 4 pages"},
		{"the same continue token again", LiveOptions{}, func(w http.ResponseWriter, _ int64) {
			page(w, "again")
		}, "the server sent the same continue token twice"},
		{"an endless page", LiveOptions{MaxResponseBytes: 1 << 20}, func(w http.ResponseWriter, _ int64) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprint(w, `{"kind":"SubscriptionList","items":[{"metadata":{"name":"`)
			chunk := []byte(strings.Repeat("x", 64<<10))
			for i := 0; i < 4096; i++ { // 256 MiB, so that a test of unfixed code ends
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "the response exceeds the limit of 1 MiB"},
		{"slow pages past the deadline", LiveOptions{Deadline: 500 * time.Millisecond}, func(w http.ResponseWriter, n int64) {
			time.Sleep(200 * time.Millisecond)
			page(w, fmt.Sprintf("page-%d", n))
		}, "the whole live read exceeded its deadline of 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := requests.Add(1)
				if n >= 200 { // so that a test of unfixed code ends
					page(w, "")
					return
				}
				tt.serve(w, n)
			}))
			defer srv.Close()
			tt.opts.Kubeconfig = testcluster.WriteKubeconfig(t, srv.URL, "t")
			tt.opts.Timeout = 5 * time.Second
			l, err := NewLiveLister(tt.opts)
			require.NoError(t, err)

			start := time.Now()
			_, _, err = l.Read(false)
			require.Error(t, err)
			assert.Less(t, time.Since(start), 2*time.Second)
			assert.Equal(t, fmt.Sprintf("live cluster %s: list subscriptions.operators.coreos.com in all namespaces: %s", srv.URL, tt.want), err.Error())
		})
	}
}
