package platform

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// TestBuiltinsAreWhatTheAPIServerServes asks the real kube-apiserver the tests run which
// kinds it serves: every built-in one is in the table, with the same scope, and every
// version the server serves is one the table lists.
func TestBuiltinsAreWhatTheAPIServerServes(t *testing.T) {
	c := testcluster.Start(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig())
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	_, lists, err := dc.ServerGroupsAndResources()
	require.NoError(t, err)
	checked := 0
	for _, l := range lists {
		group, version, _ := strings.Cut(l.GroupVersion, "/")
		if version == "" {
			group, version = "", group
		}
		if !strings.HasSuffix(group, ".k8s.io") && strings.Contains(group, ".") {
			continue // CRDs other tests installed
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // subresources
			}
			b, ok := LookupBuiltin(group, r.Kind)
			if !assert.True(t, ok, "%s %s is served by the API server but not in the table", l.GroupVersion, r.Kind) {
				continue
			}
			assert.Equal(t, r.Namespaced, b.Namespaced, "scope of %s %s", l.GroupVersion, r.Kind)
			assert.Equal(t, r.Name, b.Plural, "resource name of %s %s", l.GroupVersion, r.Kind)
			assert.True(t, slices.Contains(b.Versions, version), "%s %s: the table lacks version %s", group, r.Kind, version)
			checked++
		}
	}
	assert.Greater(t, checked, 40)
}
