package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestPlanLiveNeedsOnlyTheDocumentedRoles applies deploy/rbac/live-reader.yaml and
// deploy/rbac/plan-reader.yaml as they are, and the operand rule plan-reader.yaml tells users
// to add, to a cluster of the test's own (so that the kinds it serves, hence the plan's note,
// are known), and runs `plan --live` as the files' ServiceAccount: for an installed operator
// whose catalog carries no bundle contents, the roles are enough; for one whose catalog
// carries them, the bundle-objects rule plan-reader.yaml's comment tells users to add is
// needed, and enough.
func TestPlanLiveNeedsOnlyTheDocumentedRoles(t *testing.T) {
	t.Parallel()
	// both cases read real catalogs: skip before starting a cluster when they are absent
	kokuCatalog(t)
	kubeGreenCatalog(t)
	c := testcluster.StartPrivate(t)
	crds, err := os.ReadFile(installedData + "/_live/olm-crds.yaml")
	require.NoError(t, err)
	c.Apply(t, string(crds))
	c.Apply(t, leftoverCRD)
	c.Apply(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: argocd}\n")
	c.Apply(t, readOnlyRBAC(t, "live-reader.yaml"))
	c.Apply(t, readOnlyRBAC(t, "plan-reader.yaml"))
	c.Apply(t, operandRole("leftovers", "planlive.odlm-render.io", "leftovers", "get", "list"))
	kubeconfig := c.ServiceAccountKubeconfig(t, "argocd", "odlm-render")
	user := testcluster.ServiceAccountUser("argocd", "odlm-render")
	for _, r := range [][3]string{
		{"operators.coreos.com", "clusterserviceversions", "list"},
		{"rbac.authorization.k8s.io", "rolebindings", "list"},
		{"planlive.odlm-render.io", "leftovers", "list"},
	} {
		c.WaitAllowed(t, user, "", r[0], r[1], r[2])
	}
	// sequential: the audit log check reads every request of the ServiceAccount
	t.Run("koku, no bundle contents", func(t *testing.T) { planRBACKoku(t, c, kubeconfig, user) })
	t.Run("kube-green, bundle contents", func(t *testing.T) { planRBACKubeGreen(t, c, kubeconfig, user) })
}

// planRBACKoku sets up the plan case koku-several-versions-behind in a fresh namespace as
// TestPlanLiveMatchesTheSnapshot does, with ODLM-labelled leftovers of three kinds. The plan
// as the ServiceAccount equals the admin's but for the one labelled object of a kind the
// roles deliberately do not list (a PersistentVolumeClaim), its one note names exactly the
// kinds the roles do not list, and the API server's audit log shows only gets and lists,
// none refused but the label-selector lists of those kinds.
func planRBACKoku(t *testing.T, c *testcluster.Cluster, kubeconfig, user string) {
	ns := c.Namespace(t)
	input, snapshot := kokuCase(t, ns)
	applyWithStatus(t, c, snapshot)

	admin := planLive(t, kokuCatalog(t), input, c.AdminKubeconfig())
	got := planLive(t, kokuCatalog(t), input, kubeconfig)
	operators, _ := admin["operators"].([]any)
	require.Len(t, operators, 1)
	assert.Equal(t, "koku-metrics-operator.v3.3.0", manifest.Get(operators[0], "from"), "the installed CSV, read through the Subscription")
	assert.Equal(t, admin["operators"], got["operators"], "the operator: from, to, path, CRDs, permissions")
	assert.Equal(t, []any{}, admin["notes"])
	pvc := map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": ns, "name": "old-data"}
	assert.Equal(t, []any{
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": ns, "name": "old-settings"},
		pvc,
		map[string]any{"apiVersion": "planlive.odlm-render.io/v1", "kind": "Leftover", "namespace": ns, "name": "old-sizing"},
	}, objectsOf(admin)["removed"], "the admin finds every labelled leftover")
	wantObjects := maps.Clone(objectsOf(admin))
	removed, _ := wantObjects["removed"].([]any)
	wantObjects["removed"] = slices.DeleteFunc(slices.Clone(removed), func(o any) bool { return assert.ObjectsAreEqual(o, pvc) })
	assert.Equal(t, wantObjects, objectsOf(got), "the same objects, but for the kind the roles do not list")
	assert.Equal(t, []any{planRBACNote}, got["notes"])

	refused, reads := auditOnlyReads(t, c, user)
	assert.Equal(t, planRBACRefused, refused, "the lists refused are those of the kinds the note names")
	for _, want := range []string{
		"get /apis/operators.coreos.com/v1alpha1/namespaces/" + ns + "/subscriptions/koku-metrics-operator",
		"list /api/v1/configmaps",
		"list /api/v1/secrets",
		"list /apis/planlive.odlm-render.io/v1/leftovers",
	} {
		assert.Contains(t, reads, want, "a read plan-reader.yaml (or the operand rule) grants")
	}
}

// planRBACNote is the plan's note with live-reader.yaml and plan-reader.yaml (and the
// leftovers rule): every kind the test cluster's kube-apiserver serves and the roles do not
// list. Read it when the kube-apiserver is upgraded: a new kind listed here is one a plan
// user does not search unless they grant it.
const planRBACNote = "not searched for removed objects: 51 kinds the user may not list (forbidden), by API group: " +
	"core: ComponentStatus, Endpoints, Event, LimitRange, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodTemplate, ReplicationController, ResourceQuota; " +
	"admissionregistration.k8s.io: MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, MutatingWebhookConfiguration, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration; " +
	"apiregistration.k8s.io: APIService; " +
	"apps: ControllerRevision, DaemonSet, ReplicaSet, StatefulSet; " +
	"autoscaling: HorizontalPodAutoscaler; " +
	"batch: CronJob; " +
	"certificates.k8s.io: CertificateSigningRequest; " +
	"coordination.k8s.io: Lease; " +
	"discovery.k8s.io: EndpointSlice; " +
	"events.k8s.io: Event; " +
	"flowcontrol.apiserver.k8s.io: FlowSchema, PriorityLevelConfiguration; " +
	"networking.k8s.io: IPAddress, Ingress, IngressClass, NetworkPolicy, ServiceCIDR; " +
	"node.k8s.io: RuntimeClass; " +
	"policy: PodDisruptionBudget; " +
	"rbac.authorization.k8s.io: ClusterRole, ClusterRoleBinding; " +
	"resource.k8s.io: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice; " +
	"scheduling.k8s.io: PriorityClass; " +
	"storage.k8s.io: CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment, VolumeAttributesClass"

// planRBACRefused are the lists the API server refused, by API group ("core" for the core
// group) and resource, as RBAC rules name them: those of the kinds of planRBACNote, one each.
var planRBACRefused = []string{
	"core: componentstatuses, endpoints, events, limitranges, namespaces, nodes, persistentvolumeclaims, persistentvolumes, pods, podtemplates, replicationcontrollers, resourcequotas",
	"admissionregistration.k8s.io: mutatingadmissionpolicies, mutatingadmissionpolicybindings, mutatingwebhookconfigurations, validatingadmissionpolicies, validatingadmissionpolicybindings, validatingwebhookconfigurations",
	"apiregistration.k8s.io: apiservices",
	"apps: controllerrevisions, daemonsets, replicasets, statefulsets",
	"autoscaling: horizontalpodautoscalers",
	"batch: cronjobs",
	"certificates.k8s.io: certificatesigningrequests",
	"coordination.k8s.io: leases",
	"discovery.k8s.io: endpointslices",
	"events.k8s.io: events",
	"flowcontrol.apiserver.k8s.io: flowschemas, prioritylevelconfigurations",
	"networking.k8s.io: ingressclasses, ingresses, ipaddresses, networkpolicies, servicecidrs",
	"node.k8s.io: runtimeclasses",
	"policy: poddisruptionbudgets",
	"rbac.authorization.k8s.io: clusterrolebindings, clusterroles",
	"resource.k8s.io: deviceclasses, resourceclaims, resourceclaimtemplates, resourceslices",
	"scheduling.k8s.io: priorityclasses",
	"storage.k8s.io: csidrivers, csinodes, csistoragecapacities, storageclasses, volumeattachments, volumeattributesclasses",
}

// readOnlyRBAC reads a file of deploy/rbac and checks that its roles grant get and list only.
func readOnlyRBAC(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../deploy/rbac", name))
	require.NoError(t, err)
	objs, err := manifest.Decode("deploy/rbac/"+name, b)
	require.NoError(t, err)
	for _, o := range objs {
		rules, _ := o.Map["rules"].([]any)
		for _, r := range rules {
			verbs, _ := manifest.Get(r, "verbs").([]any)
			for _, v := range verbs {
				assert.Contains(t, []any{"get", "list"}, v, "%s: %s grants reads only: %v", name, o.Name(), r)
			}
		}
	}
	return string(b)
}

// kokuCase writes the input of the plan case koku-several-versions-behind and returns its
// path and the case's cluster objects with the labelled leftovers, its namespace costs
// renamed to ns.
func kokuCase(t *testing.T, ns string) (string, []*manifest.Object) {
	t.Helper()
	dir := "../../testdata/plan/koku-several-versions-behind"
	rename := map[string]string{"costs": ns}
	extra := filepath.Join(t.TempDir(), "labelled.yaml")
	require.NoError(t, os.WriteFile(extra, []byte(labelledLeftovers+"---\n"+labelledConfigMap), 0o644))
	read := func(paths ...string) []*manifest.Object {
		docs, err := inputs.ReadPaths(paths, nil)
		require.NoError(t, err)
		var objs []*manifest.Object
		for _, o := range docs {
			objs = append(objs, manifest.New(renameNamespaces(o.Map, rename).(map[string]any)))
		}
		return objs
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, read(dir+"/input")))
	input := filepath.Join(t.TempDir(), "input.yaml")
	require.NoError(t, os.WriteFile(input, buf.Bytes(), 0o644))
	return input, read(dir+"/snapshot", extra)
}

// kokuCatalog is the real catalog of the plan case koku-several-versions-behind, read from
// the reference folder (t skips without it).
func kokuCatalog(t *testing.T) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-upgrade/community-v4.20/koku-metrics-operator")
}

// kubeGreenCatalog is the real catalog of the plan case kube-green-crd-changes, with bundle
// contents, read from the reference folder (t skips without it).
func kubeGreenCatalog(t *testing.T) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green")
}

// planLive runs plan --live of an input with a catalog and a kubeconfig, and decodes its JSON.
func planLive(t *testing.T, catalog, input, kubeconfig string) map[string]any {
	t.Helper()
	code, out, stderr := runCLI(t, "", "plan", input, "--catalog", catalog, "-o", "json", "--live", "--kubeconfig", kubeconfig)
	require.Equal(t, ExitOK, code, stderr)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return m
}

// objectsOf is the objects section of a plan.
func objectsOf(m map[string]any) map[string]any {
	objects, _ := m["objects"].(map[string]any)
	return objects
}

// auditOnlyReads checks the audit log's events of user: each a get or a list, answered 200
// or 404 (plan asks whether the objects it renders exist), or refused (403) only as a list
// of a whole kind in all namespaces with ODLM's label selector. It returns the refused
// lists' resources by API group, as planRBACRefused, and the answered requests as
// "verb path".
func auditOnlyReads(t *testing.T, c *testcluster.Cluster, user string) (refused, reads []string) {
	t.Helper()
	events := c.WaitAuditEvents(t, user, 10)
	byGroup := map[string][]string{}
	for _, e := range events {
		assert.Contains(t, []string{"get", "list"}, e.Verb, "%s", e.RequestURI)
		if !assert.NotNil(t, e.ResponseStatus, "%s %s", e.Verb, e.RequestURI) {
			continue
		}
		path, query, _ := strings.Cut(e.RequestURI, "?")
		if e.ResponseStatus.Code != 403 {
			assert.Contains(t, []int{200, 404}, e.ResponseStatus.Code, "%s %s", e.Verb, e.RequestURI)
			reads = append(reads, e.Verb+" "+path)
			continue
		}
		values, err := url.ParseQuery(query)
		require.NoError(t, err)
		ok := e.Verb == "list" && e.ObjectRef != nil && e.ObjectRef.Namespace == "" &&
			values.Get("labelSelector") == "operator.ibm.com/opreq-control=true"
		if assert.True(t, ok, "refused: %s %s", e.Verb, e.RequestURI) {
			byGroup[e.ObjectRef.APIGroup] = append(byGroup[e.ObjectRef.APIGroup], e.ObjectRef.Resource)
		}
	}
	refused = []string{}
	for _, group := range slices.Sorted(maps.Keys(byGroup)) {
		refused = append(refused, cmp.Or(group, "core")+": "+strings.Join(slices.Sorted(slices.Values(byGroup[group])), ", "))
	}
	return refused, reads
}

// labelledConfigMap is an ODLM-labelled ConfigMap the render does not generate (the
// namespace costs is renamed by the test): plan-reader.yaml lists ConfigMaps.
const labelledConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: old-settings, namespace: costs, labels: {operator.ibm.com/opreq-control: "true"}}
data: {size: small}
`

// operandRole is a ClusterRole with one rule, bound to the ServiceAccount of deploy/rbac as
// plan-reader.yaml's example of an operand role binds it.
func operandRole(name, group, resource string, verbs ...string) string {
	return strings.NewReplacer("NAME", "odlm-render-plan-"+name, "GROUP", group, "RESOURCE", resource, "VERBS", strings.Join(verbs, ", ")).Replace(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: NAME}
rules:
- apiGroups: [GROUP]
  resources: [RESOURCE]
  verbs: [VERBS]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: NAME}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: NAME}
subjects:
- {kind: ServiceAccount, name: odlm-render, namespace: argocd}
`)
}

// planRBACKubeGreen sets up the plan case kube-green-crd-changes (its catalog carries bundle
// contents: CRDs, permissions, other manifests), its namespaces as they are (the cluster is
// the test's own). With the roles and the operand rule for SleepInfos, plan fails with an
// error naming the bundle's ClusterRole it may not get; with the bundle-objects rule
// plan-reader.yaml's comment tells users to add, its operators equal the admin's: the CRD
// changes (get customresourcedefinitions), the installed CSV's permissions (get
// clusterserviceversions) and the bundle's objects.
func planRBACKubeGreen(t *testing.T, c *testcluster.Cluster, kubeconfig, user string) {
	dir := "../../testdata/plan/kube-green-crd-changes"
	c.Apply(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-green}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: dev}\n")
	crd, err := os.ReadFile(dir + "/snapshot/crd-sleepinfos.yaml")
	require.NoError(t, err)
	c.Apply(t, string(crd))
	docs, err := inputs.ReadPaths([]string{dir + "/snapshot/cluster.yaml"}, nil)
	require.NoError(t, err)
	var objs []*manifest.Object
	for _, d := range docs {
		objs = append(objs, manifest.New(d.Map))
	}
	applyWithStatus(t, c, objs)
	input := dir + "/input"

	admin := planLive(t, kubeGreenCatalog(t), input, c.AdminKubeconfig())
	operators, _ := admin["operators"].([]any)
	require.NotEmpty(t, operators)
	kubeGreen := operators[0] // sorted by namespace: before the koku case's removal
	assert.Equal(t, "kube-green.v0.6.0", manifest.Get(kubeGreen, "from"))
	assert.Len(t, manifest.Get(kubeGreen, "crdChanges"), 3, "the CRD the bundle changes, read with get")
	assert.NotEmpty(t, manifest.Get(kubeGreen, "rbac", "removed"), "the installed CSV's permissions, read with get")
	assert.Equal(t, []any{map[string]any{"crd": "sleepinfos.kube-green.com", "object": "dev/working-hours", "field": "spec.suspendJobs",
		"reason": "not in the new schema: the API server drops it when it reads the object, and it is lost on the next write"}},
		manifest.Get(kubeGreen, "storedObjects"), "the stored SleepInfo, listed in the version the cluster serves (v1alpha1), as --snapshot finds it")

	refusedAs := func(want string) {
		t.Helper()
		code, out, stderr := runCLI(t, "", "plan", input, "--catalog", kubeGreenCatalog(t), "-o", "json", "--live", "--kubeconfig", kubeconfig)
		assert.Equal(t, ExitErrors, code, out)
		assert.Contains(t, stderr, want)
	}
	c.Apply(t, operandRole("sleepinfos", "kube-green.com", "sleepinfos", "get", "list"))
	c.WaitAllowed(t, user, "", "kube-green.com", "sleepinfos", "list")
	refusedAs(`reading ClusterRole kube-green-metrics-reader: live cluster ` + c.Server() + `: forbidden: user "` + user +
		`" cannot get clusterroles.rbac.authorization.k8s.io kube-green-metrics-reader (RBAC)`)
	c.Apply(t, operandRole("bundle-objects", "rbac.authorization.k8s.io", "clusterroles", "get"))
	c.WaitAllowed(t, user, "", "rbac.authorization.k8s.io", "clusterroles", "get")

	got := planLive(t, kubeGreenCatalog(t), input, kubeconfig)
	assert.Equal(t, admin["operators"], got["operators"], "the operators: from, to, path, CRD changes, permissions, bundle objects")
	for _, e := range c.AuditEvents(t, user) {
		assert.Contains(t, []string{"get", "list"}, e.Verb, "%s", e.RequestURI)
	}
}
