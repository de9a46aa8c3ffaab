package testcluster_test

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

func client(t *testing.T, kubeconfig string) *dynamic.DynamicClient {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return dyn
}

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func TestNamespaceIsFreshAndValid(t *testing.T) {
	c := testcluster.Start(t)
	a, b := c.Namespace(t), c.Namespace(t)
	assert.NotEqual(t, a, b)
	t.Run("a very long subtest name with Capitals and / slashes that goes on and on", func(t *testing.T) {
		ns := c.Namespace(t)
		assert.LessOrEqual(t, len(ns), 63)
		assert.Regexp(t, regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`), ns)
	})
}

func TestApplyIsIdempotentAndGrantReader(t *testing.T) {
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	doc := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: %s}\ndata: {k: %%s}\n", ns)
	c.Apply(t, fmt.Sprintf(doc, "one"))
	c.Apply(t, fmt.Sprintf(doc, "two")) // updates, no AlreadyExists

	admin := client(t, c.AdminKubeconfig())
	got, err := admin.Resource(configMaps).Namespace(ns).Get(context.Background(), "cm", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"k": "two"}, got.Object["data"])

	reader := client(t, c.ReaderKubeconfig())
	_, err = reader.Resource(configMaps).Namespace(ns).Get(context.Background(), "cm", metav1.GetOptions{})
	require.Error(t, err, "the reader has no grants yet")
	assert.Contains(t, err.Error(), `User "reader" cannot get resource "configmaps"`)

	c.GrantReader(t, ns, []string{"configmaps"}, []string{"get"})
	_, err = reader.Resource(configMaps).Namespace(ns).Get(context.Background(), "cm", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = reader.Resource(configMaps).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.Error(t, err, "only get was granted")

	// cluster-wide grant on a resource of a named group
	c.GrantReader(t, "", []string{"clusterroles.rbac.authorization.k8s.io"}, []string{"get"})
	_, err = reader.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}).
		Get(context.Background(), "admin", metav1.GetOptions{})
	require.NoError(t, err)

	c.Delete(t, "v1", "ConfigMap", ns, "cm")
	c.Delete(t, "v1", "ConfigMap", ns, "cm") // NotFound is fine
}

func TestUnreachableKubeconfig(t *testing.T) {
	path := testcluster.UnreachableKubeconfig(t)
	_, err := client(t, path).Resource(configMaps).Namespace("x").Get(context.Background(), "y", metav1.GetOptions{})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "connection refused"), err.Error())
}

// TestStartPrivate: a private cluster is another API server than the shared one, serves
// only the built-in kinds (no CRD another test applied), and is gone after the test.
func TestStartPrivate(t *testing.T) {
	shared := testcluster.Start(t)
	shared.Apply(t, privateProbeCRD)
	var server string
	t.Run("private", func(t *testing.T) {
		began := time.Now()
		c := testcluster.StartPrivate(t)
		t.Logf("a private cluster started in %s", time.Since(began).Round(100*time.Millisecond))
		server = c.Server()
		assert.NotEqual(t, shared.Server(), server)
		admin := client(t, c.AdminKubeconfig())
		_, err := admin.Resource(schema.GroupVersionResource{Group: "private-probe.odlm-render.io", Version: "v1", Resource: "probes"}).
			List(context.Background(), metav1.ListOptions{})
		require.Error(t, err, "the shared cluster's CRD is not served here")
		ns := c.Namespace(t)
		c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: %s}\n", ns))
	})
	_, err := net.DialTimeout("tcp", strings.TrimPrefix(server, "https://"), 2*time.Second)
	require.Error(t, err, "stopped in the test's cleanup: nothing listens on its port")
}

const privateProbeCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: probes.private-probe.odlm-render.io}
spec:
  group: private-probe.odlm-render.io
  scope: Namespaced
  names: {plural: probes, singular: probe, kind: Probe, listKind: ProbeList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`
