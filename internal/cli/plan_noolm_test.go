package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestPlanLiveWithoutOLM runs `plan --live` and `render --live` against a kube-apiserver of
// the test's own that serves no OLM kinds (a fresh cluster, OLM not installed yet): the plan
// does not fail, its operator is a new install, it says once why (a plan-level note), and
// the search for removed objects still finds a labelled PersistentVolumeClaim.
func TestPlanLiveWithoutOLM(t *testing.T) {
	t.Parallel()
	catalog := kokuCatalog(t)
	c := testcluster.StartPrivate(t)
	c.Apply(t, `apiVersion: v1
kind: Namespace
metadata: {name: costs}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: old-data, namespace: costs, labels: {operator.ibm.com/opreq-control: "true"}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`)
	args := []string{"../../testdata/plan/koku-several-versions-behind/input", "--catalog", catalog, "--live", "--kubeconfig", c.AdminKubeconfig()}

	code, out, stderr := runCLI(t, "", append([]string{"plan", "-o", "json"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	var p struct {
		Operators []struct {
			Name, Action, From, To string
		} `json:"operators"`
		Objects struct {
			Removed []map[string]string `json:"removed"`
		} `json:"objects"`
		Notes []string `json:"notes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &p), out)
	require.Len(t, p.Operators, 1)
	assert.Equal(t, "install", p.Operators[0].Action)
	assert.Empty(t, p.Operators[0].From)
	assert.Equal(t, "koku-metrics-operator.v4.4.1", p.Operators[0].To)
	require.Len(t, p.Notes, 1, "said once, at plan level")
	assert.Contains(t, p.Notes[0], "the cluster serves no OLM kinds (operators.coreos.com/v1alpha1 Subscription, ClusterServiceVersion")
	assert.Contains(t, p.Notes[0], "installed versions, upgrade paths and removed operators could not be read")
	assert.Equal(t, []map[string]string{{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": "costs", "name": "old-data"}}, p.Objects.Removed)

	code, out, stderr = runCLI(t, "", append([]string{"plan"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.True(t, strings.HasPrefix(out, "note: the cluster serves no OLM kinds"), out)

	code, out, stderr = runCLI(t, "", append([]string{"render"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "kind: Subscription")
	assert.NotContains(t, stderr, "koku", "no warning: a cluster without OLM has no Subscription to find")
}
