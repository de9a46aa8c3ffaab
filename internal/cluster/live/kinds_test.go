package live

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestLiveKinds: discovery on a real kube-apiserver gives the kinds that can be listed, in
// each group's preferred version, custom resources included; kinds without the list verb
// (reviews, bindings) and subresources are left out.
func TestLiveKinds(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	c.Apply(t, testCRDs)
	live, err := NewReader(Options{Kubeconfig: c.AdminKubeconfig()})
	require.NoError(t, err)
	kinds, err := live.Kinds()
	require.NoError(t, err)
	for _, want := range []cluster.Kind{
		{APIVersion: "v1", Kind: "ConfigMap"},
		{APIVersion: "v1", Kind: "Secret"},
		{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		{APIVersion: "apps/v1", Kind: "Deployment"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		{APIVersion: "test.odlm-render.io/v1alpha1", Kind: "Widget"},
		{APIVersion: "test.odlm-render.io/v1alpha1", Kind: "Gadget"},
	} {
		assert.Contains(t, kinds, want)
	}
	for _, absent := range []cluster.Kind{
		{APIVersion: "v1", Kind: "Binding"}, // create only
		{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"}, // a subresource's kind
	} {
		assert.NotContains(t, kinds, absent)
	}
	sorted := append([]cluster.Kind(nil), kinds...)
	cluster.SortKinds(sorted)
	assert.Equal(t, sorted, kinds, "sorted")

	t.Run("a user without grants still discovers", func(t *testing.T) {
		reader, err := NewReader(Options{Kubeconfig: c.ReaderKubeconfig()})
		require.NoError(t, err)
		got, err := reader.Kinds()
		require.NoError(t, err)
		assert.Contains(t, got, cluster.Kind{APIVersion: "v1", Kind: "ConfigMap"})
	})
}

// queryRecorder records the path and query of every request that leaves a Live reader.
type queryRecorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *queryRecorder) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
		r.mu.Unlock()
		return next.RoundTrip(req)
	})
}

func (r *queryRecorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

// TestLiveListLabelled: the server filters by the label (the request carries the selector),
// a kind not served is ErrNotServed, one the user may not list is ErrForbidden with the
// message that names the user, verb and resource.
func TestLiveListLabelled(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	c.Apply(t, strings.ReplaceAll(`apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: NS, labels: {operator.ibm.com/opreq-control: "true"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: NS, labels: {operator.ibm.com/opreq-control: "false"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: NS}
`, "NS", ns))
	rec := &queryRecorder{}
	live, err := NewReader(Options{Kubeconfig: c.AdminKubeconfig(), WrapTransport: rec.wrap})
	require.NoError(t, err)
	var _ cluster.LabelLister = live

	got, err := live.ListLabelled("v1", "ConfigMap", ns, "operator.ibm.com/opreq-control", "true")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "a", manifest.New(got[0]).Name())
	assert.Equal(t, "ConfigMap", manifest.New(got[0]).Kind())
	assert.Contains(t, rec.requests(), "GET /api/v1/namespaces/"+ns+"/configmaps?labelSelector=operator.ibm.com%2Fopreq-control%3Dtrue&limit=100&timeout=10s")

	_, err = live.ListLabelled("never-served.odlm-render.io/v1", "Nothing", "", "operator.ibm.com/opreq-control", "true")
	assert.ErrorIs(t, err, cluster.ErrNotServed)

	for _, tc := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"v1", "ConfigMap", true},
		{"v1", "Nothing", false},
		{"never-served.odlm-render.io/v1", "Nothing", false},
	} {
		served, err := live.Serves(tc.apiVersion, tc.kind)
		require.NoError(t, err)
		assert.Equal(t, tc.want, served, "%s %s", tc.apiVersion, tc.kind)
	}

	reader, err := NewReader(Options{Kubeconfig: c.ReaderKubeconfig()})
	require.NoError(t, err)
	_, err = reader.ListLabelled("v1", "Secret", "", "operator.ibm.com/opreq-control", "true")
	require.ErrorIs(t, err, cluster.ErrForbidden)
	assert.Contains(t, err.Error(), `forbidden: user "reader" cannot list secrets in all namespaces (RBAC)`)
}

// TestLiveKindsIncomplete: a group-version whose discovery fails (an aggregated API that is
// down) is left out and named, the others are kept; names that are no group or version are
// never requested.
func TestLiveKindsIncomplete(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var paths []string
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"]}`)
		case "/apis":
			fmt.Fprint(w, `{"kind":"APIGroupList","groups":[
			  {"name":"good.example","versions":[{"groupVersion":"good.example/v1","version":"v1"},{"groupVersion":"good.example/v2","version":"v2"}],"preferredVersion":{"groupVersion":"good.example/v2","version":"v2"}},
			  {"name":"down.example","versions":[{"groupVersion":"down.example/v1","version":"v1"}],"preferredVersion":{"groupVersion":"down.example/v1","version":"v1"}},
			  {"name":"../../evil","versions":[{"groupVersion":"../../evil/v1","version":"v1"}],"preferredVersion":{"groupVersion":"../../evil/v1","version":"v1"}}]}`)
		case "/apis/good.example/v2":
			fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"good.example/v2","resources":[
			  {"name":"things","namespaced":true,"kind":"Thing","verbs":["get","list"]},
			  {"name":"things/status","namespaced":true,"kind":"Thing","verbs":["get","list"]},
			  {"name":"reviews","namespaced":false,"kind":"Review","verbs":["create"]}]}`)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`)
		}
	})
	live, err := NewReader(Options{Kubeconfig: testcluster.WriteKubeconfig(t, srv.URL, "token")})
	require.NoError(t, err)
	kinds, err := live.Kinds()
	require.ErrorIs(t, err, cluster.ErrIncompleteKinds)
	assert.Contains(t, err.Error(), "the discovery of down.example/v1 failed")
	assert.Equal(t, []cluster.Kind{{APIVersion: "good.example/v2", Kind: "Thing"}, {APIVersion: "v1", Kind: "ConfigMap"}}, kinds)
	for _, p := range paths {
		assert.NotContains(t, p, "evil")
	}
	assert.False(t, errors.Is(err, cluster.ErrForbidden))
}
