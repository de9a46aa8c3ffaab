package live

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestLiveLists lists from a real kube-apiserver, as ODLM's searches do (docs/semantics.md "One look-up order"): in a
// namespace, across namespaces, page by page, with kinds that are not served and RBAC that
// forbids listing; only GET requests leave the process.
func TestLiveLists(t *testing.T) {
	c := testcluster.Start(t)
	ns, other := c.Namespace(t), c.Namespace(t)
	var objs strings.Builder
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&objs, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d, namespace: %s, labels: {list-test: %q}}\ndata: {i: %q}\n", i, ns, ns, fmt.Sprint(i))
	}
	fmt.Fprintf(&objs, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-other, namespace: %s, labels: {list-test: %q}}\n", other, ns)
	c.Apply(t, objs.String())

	rec := &recorder{}
	// seven objects: three pages
	live, err := NewReader(Options{Kubeconfig: c.AdminKubeconfig(), WrapTransport: rec.wrap, ListPageSize: 3})
	require.NoError(t, err)
	var _ cluster.Lister = live

	got, err := live.List("v1", "ConfigMap", ns)
	require.NoError(t, err)
	var names []string
	for _, o := range got {
		m := manifest.New(o)
		if m.Labels()["list-test"] == ns {
			names = append(names, m.Name())
		}
		assert.Equal(t, "v1", m.APIVersion(), "a LIST's items get their apiVersion")
		assert.Equal(t, "ConfigMap", m.Kind(), "and their kind")
	}
	assert.Equal(t, []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"}, names)

	all, err := live.List("v1", "ConfigMap", "")
	require.NoError(t, err)
	var mine []string
	for _, o := range all {
		if m := manifest.New(o); m.Labels()["list-test"] == ns {
			mine = append(mine, m.Namespace()+"/"+m.Name())
		}
	}
	assert.Len(t, mine, 8, "all namespaces: %v", mine)
	assert.Contains(t, mine, other+"/cm-other")

	_, err = live.List("never-served.odlm-render.io/v1", "Nothing", ns) // no test installs this group
	require.Error(t, err)
	assert.True(t, errors.Is(err, cluster.ErrNotServed), "%v", err)

	pages := 0
	for _, r := range rec.requests() {
		assert.True(t, strings.HasPrefix(r, "GET "), r)
		if strings.HasPrefix(r, "GET /api/v1/namespaces/"+ns+"/configmaps") {
			pages++
		}
	}
	assert.Equal(t, 3, pages, "seven objects at three a page")

	t.Run("forbidden names the user, the verb and the resource", func(t *testing.T) {
		c.GrantReader(t, ns, []string{"configmaps"}, []string{"get"}) // get, not list
		live, err := NewReader(Options{Kubeconfig: c.ReaderKubeconfig()})
		require.NoError(t, err)
		_, err = live.List("v1", "ConfigMap", ns)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
		assert.Contains(t, err.Error(), "cannot list configmaps in namespace "+ns)
	})
}
