package crdupgrade_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odlm-render/odlm-render/internal/crdupgrade"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// testGroup is the group the cross-check serves kube-green's SleepInfo under, so that it
// owns its CRD on a shared cluster.
const testGroup = "crdupgrade.test"

// testCRD is kube-green's SleepInfo CRD under testGroup, with a served v1beta1 copy.
func testCRD(t *testing.T) map[string]any {
	t.Helper()
	crd := load(t, sleepInfos(t))
	crd["metadata"].(map[string]any)["name"] = "sleepinfos." + testGroup
	crd["spec"].(map[string]any)["group"] = testGroup
	delete(crd, "status")
	addBeta(crd, false)
	return crd
}

// TestAgreesWithTheAPIServer stores a SleepInfo with the old CRD on the real kube-apiserver,
// then updates the CRD: dropping the storage version is what the server refuses (and Check
// calls unsafe); a removed field is accepted by the server, which drops the field from the
// stored object when it reads it, as Check and ValidateStored say; a tightened validation is
// accepted, the stored object reads back unchanged, the server refuses its value in a new
// object and ratchets it in an update that leaves it, and a changed type or a new required field the
// object lacks makes every update fail, as ValidateStored says.
func TestAgreesWithTheAPIServer(t *testing.T) {
	sleepInfos(t) // the CRD is real data: skip before starting a cluster without it
	c := testcluster.Start(t)
	oldCRD := testCRD(t)
	require.NoError(t, c.ApplyObject(oldCRD))
	ns := c.Namespace(t)
	obj := sleepInfo(t)
	obj["apiVersion"] = testGroup + "/v1alpha1"
	obj["metadata"].(map[string]any)["namespace"] = ns
	require.NoError(t, c.ApplyObject(obj))

	t.Run("storage version dropped", func(t *testing.T) {
		newCRD := testCRD(t)
		version(newCRD, 1)["storage"] = true
		newCRD["spec"].(map[string]any)["versions"] = versions(newCRD)[1:]
		findings, err := crdupgrade.Check(oldCRD, newCRD)
		require.NoError(t, err)
		assert.Equal(t, []verdict{{"", "status.storedVersions", "storedVersionRemoval", false}}, verdicts(crdupgrade.Unsafe(findings)))
		err = c.ApplyObject(newCRD)
		require.Error(t, err, "the API server refuses it")
		assert.Contains(t, err.Error(), "status.storedVersions")
	})

	t.Run("field removed", func(t *testing.T) {
		newCRD := testCRD(t)
		for i := range versions(newCRD) {
			delete(schemaProps(newCRD, i), "timeZone")
		}
		findings, err := crdupgrade.Check(oldCRD, newCRD)
		require.NoError(t, err)
		assert.Equal(t, []verdict{
			{"v1alpha1", "spec.timeZone", "existingFieldRemoval", false},
			{"v1beta1", "spec.timeZone", "existingFieldRemoval", false},
		}, verdicts(crdupgrade.Unsafe(findings)))
		problems := crdupgrade.ValidateStored(newCRD, "v1alpha1", []map[string]any{obj})
		assert.Equal(t, []crdupgrade.Problem{{Object: ns + "/night", Field: "spec.timeZone", Reason: "not in the new schema: the API server drops it when it reads the object, and it is lost on the next write"}}, problems)

		require.NoError(t, c.ApplyObject(newCRD), "the API server accepts it")
		gvr := schema.GroupVersionResource{Group: testGroup, Version: "v1alpha1", Resource: "sleepinfos"}
		var spec map[string]any
		// the server serves the new schema once its handler has reloaded the CRD
		require.Eventually(t, func() bool {
			spec, _ = get(t, c, gvr, ns, "night")["spec"].(map[string]any)
			_, kept := spec["timeZone"]
			return !kept
		}, 10*time.Second, 100*time.Millisecond, "the server drops the field from the stored object")
		assert.Equal(t, "1-5", spec["weekdays"])
	})

	t.Run("validation tightened", func(t *testing.T) {
		newCRD := testCRD(t)
		for i := range versions(newCRD) {
			schemaProps(newCRD, i)["weekdays"].(map[string]any)["maxLength"] = int64(1)
		}
		findings, err := crdupgrade.Check(oldCRD, newCRD)
		require.NoError(t, err)
		assert.Contains(t, verdicts(crdupgrade.Unsafe(findings)), verdict{"v1alpha1", "spec.weekdays", "maxLength", false})
		problems := crdupgrade.ValidateStored(newCRD, "v1alpha1", []map[string]any{obj})
		require.Len(t, problems, 1)
		assert.Equal(t, "spec.weekdays", problems[0].Field)
		assert.Contains(t, problems[0].Reason, "an update that leaves the field as it is passes")

		require.NoError(t, c.ApplyObject(newCRD), "the API server accepts the CRD")
		fresh := sleepInfo(t)
		fresh["apiVersion"] = testGroup + "/v1alpha1"
		md := fresh["metadata"].(map[string]any)
		md["namespace"], md["name"] = ns, "another-night"
		// the server refuses a new object with the stored object's value, as ValidateStored says
		require.Eventually(t, func() bool {
			err := c.ApplyObject(fresh)
			return err != nil && strings.Contains(err.Error(), "spec.weekdays")
		}, 10*time.Second, 100*time.Millisecond, "the server refuses the value under the new schema")
		gvr := schema.GroupVersionResource{Group: testGroup, Version: "v1alpha1", Resource: "sleepinfos"}
		spec, _ := get(t, c, gvr, ns, "night")["spec"].(map[string]any)
		assert.Equal(t, "1-5", spec["weekdays"], "the stored object reads back unchanged")
		// validation ratcheting: a write that leaves the refused value as it is passes
		again := sleepInfo(t)
		again["apiVersion"] = testGroup + "/v1alpha1"
		again["metadata"].(map[string]any)["namespace"] = ns
		again["spec"].(map[string]any)["sleepAt"] = "21:00"
		require.NoError(t, c.ApplyObject(again), "an update that leaves the refused value passes (validation ratcheting)")

		typed := testCRD(t)
		for i := range versions(typed) {
			schemaProps(typed, i)["weekdays"] = map[string]any{"type": "integer"}
		}
		require.NoError(t, c.ApplyObject(typed))
		problems = crdupgrade.ValidateStored(typed, "v1alpha1", []map[string]any{obj})
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0].Reason, "every update of the object is refused")
		require.Eventually(t, func() bool {
			again["spec"].(map[string]any)["sleepAt"] = "21:10"
			err := c.ApplyObject(again)
			return err != nil && strings.Contains(err.Error(), "spec.weekdays")
		}, 10*time.Second, 100*time.Millisecond, "a value of the wrong type is not ratcheted: any update is refused")

		req := testCRD(t)
		for i := range versions(req) {
			spec := version(req, i)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
			spec["required"] = append(spec["required"].([]any), "suspendCronJobs")
		}
		require.NoError(t, c.ApplyObject(req))
		problems = crdupgrade.ValidateStored(req, "v1alpha1", []map[string]any{obj})
		require.Len(t, problems, 1)
		assert.Equal(t, "spec.suspendCronJobs", problems[0].Field)
		assert.Contains(t, problems[0].Reason, "every update of the object is refused")
		require.Eventually(t, func() bool {
			again["spec"].(map[string]any)["sleepAt"] = "21:30"
			err := c.ApplyObject(again)
			return err != nil && strings.Contains(err.Error(), "spec.suspendCronJobs: Required value")
		}, 10*time.Second, 100*time.Millisecond, "a required field is not ratcheted: any update is refused")
	})
}

// schemaProps are the properties of spec of the CRD's i-th version.
func schemaProps(crd map[string]any, i int) map[string]any {
	s := version(crd, i)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	return s["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
}

// get reads an object from the cluster as the admin.
func get(t *testing.T, c *testcluster.Cluster, gvr schema.GroupVersionResource, ns, name string) map[string]any {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig())
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	got, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return got.Object
}
