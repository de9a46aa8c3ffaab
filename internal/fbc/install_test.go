package fbc_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// realBundles is the reference folder's copy of testdata/bundles: real registry+v1 bundle
// folders (t skips without it).
func realBundles(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "bundles")
}

// bundleFile is a manifest of a bundle folder, read independently of the catalog package
// (sigs.k8s.io/yaml, numbers exact).
type bundleFile struct {
	name string
	obj  map[string]any
}

// readBundleFolder reads every manifest of a bundle's manifests folder; each real file
// holds one document.
func readBundleFolder(t *testing.T, dir string) (csv map[string]any, others []bundleFile) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		require.NotContains(t, string(data), "\n---", "%s: one document a file", e.Name())
		obj := jsonTree(t, data).(map[string]any)
		switch obj["kind"] {
		case "ClusterServiceVersion":
			csv = obj
		case "CustomResourceDefinition":
		default:
			others = append(others, bundleFile{e.Name(), obj})
		}
	}
	require.NotNil(t, csv, dir)
	return csv, others
}

// jsonTree is YAML or JSON text as a JSON value tree, numbers json.Number.
func jsonTree(t *testing.T, data []byte) any {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(data)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	return v
}

// at is the value at a path of keys and list indexes (nil when absent).
func at(v any, path ...any) any {
	return manifestPath(v, path...)
}

// stringsOf is a mapping of strings of a tree (nil when absent).
func stringsOf(t *testing.T, v any) map[string]string {
	t.Helper()
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, ok := x.(string)
		require.True(t, ok, "%s is not a string", k)
		out[k] = s
	}
	return out
}

// kubeGreenWebhook is kube-green 0.7.1's webhookdefinitions element, as its CSV writes it.
var kubeGreenWebhook = v1alpha1.WebhookDescription{
	GenerateName:   "vsleepinfo.kb.io",
	Type:           v1alpha1.ValidatingAdmissionWebhook,
	DeploymentName: "kube-green-controller-manager",
	ContainerPort:  443,
	TargetPort:     ptrTo(intstr.FromInt32(9443)),
	Rules: []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"kube-green.com"}, APIVersions: []string{"v1alpha1"},
			Resources: []string{"sleepinfos"}},
	}},
	FailurePolicy:           ptrTo(admissionregistrationv1.Fail),
	SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
	AdmissionReviewVersions: []string{"v1"},
	WebhookPath:             ptrTo("/validate-kube-green-com-v1alpha1-sleepinfo"),
}

// TestInstallFromBundleFolders reads the install strategy and the other manifests of the
// three real bundles whole, and checks them against the CSV and files read independently.
func TestInstallFromBundleFolders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bundle      string
		csvName     string
		deployments []string
		labels      []map[string]string
		// the deployment's pods' service account ("" when the CSV names none: the
		// namespace's default, as nfs-provisioner-operator's permissions say)
		serviceAccount string
		permissionsFor string
		webhooks       []v1alpha1.WebhookDescription
		objects        []fbc.ObjectRef
	}{
		{bundle: "kube-green-0.7.1", csvName: "kube-green.v0.7.1", deployments: []string{"kube-green-controller-manager"},
			labels: []map[string]string{{"app": "kube-green", "app.kubernetes.io/component": "manager",
				"app.kubernetes.io/created-by": "kube-green", "app.kubernetes.io/instance": "controller-manager",
				"app.kubernetes.io/managed-by": "kustomize", "app.kubernetes.io/name": "deployment",
				"app.kubernetes.io/part-of": "kube-green", "control-plane": "controller-manager"}},
			serviceAccount: "kube-green-controller-manager", permissionsFor: "kube-green-controller-manager",
			webhooks: []v1alpha1.WebhookDescription{kubeGreenWebhook},
			objects: []fbc.ObjectRef{
				{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "kube-green-metrics-reader"},
				{APIVersion: "v1", Kind: "Service", Name: "kube-green-controller-manager-metrics-service"},
				{APIVersion: "v1", Kind: "Service", Name: "kube-green-webhook-service"}}},
		{bundle: "keycloak-operator-26.7.1", csvName: "keycloak-operator.v26.7.1", deployments: []string{"keycloak-operator"},
			labels: []map[string]string{nil}, serviceAccount: "keycloak-operator", permissionsFor: "keycloak-operator"},
		{bundle: "nfs-provisioner-operator-0.0.9", csvName: "nfs-provisioner-operator.v0.0.9",
			deployments: []string{"nfs-provisioner-operator-controller-manager"},
			labels:      []map[string]string{{"control-plane": "controller-manager"}}, permissionsFor: "default",
			objects: []fbc.ObjectRef{
				{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "nfs-provisioner-operator-metrics-reader"},
				{APIVersion: "v1", Kind: "Service", Name: "nfs-provisioner-operator-controller-manager-metrics-service"}}},
	}
	for _, tc := range cases {
		t.Run(tc.bundle, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(realBundles(t), tc.bundle, "manifests")
			c, err := fbc.ContentsFromFolder(dir)
			require.NoError(t, err)
			csv, others := readBundleFolder(t, dir)
			in := c.Install
			require.NotNil(t, in)

			assert.Equal(t, tc.csvName, in.CSVName)
			assert.Equal(t, at(csv, "metadata", "name"), in.CSVName)
			assert.Equal(t, stringsOf(t, at(csv, "metadata", "annotations")), in.Annotations)
			assert.Contains(t, in.Annotations, "alm-examples")

			var names []string
			var labels []map[string]string
			for i, d := range in.Deployments {
				names = append(names, d.Name)
				labels = append(labels, d.Label)
				spec, err := c.DeploymentSpec(i)
				require.NoError(t, err)
				assert.Equal(t, at(csv, "spec", "install", "spec", "deployments", i, "spec"), any(spec), d.Name)
				assert.Equal(t, nilIfEmpty(tc.serviceAccount), at(spec, "template", "spec", "serviceAccountName"), d.Name)
			}
			assert.Equal(t, tc.deployments, names)
			assert.Equal(t, tc.labels, labels)
			assert.Equal(t, tc.deployments, c.Deployments, "the names, as before")
			require.NotEmpty(t, c.Permissions)
			assert.Equal(t, tc.permissionsFor, c.Permissions[0].ServiceAccountName)
			assert.Equal(t, tc.webhooks, in.Webhooks)
			assert.Nil(t, in.APIServices, "apiservicedefinitions: {}")
			var modes []any
			for _, m := range in.InstallModes {
				modes = append(modes, map[string]any{"type": string(m.Type), "supported": m.Supported})
			}
			assert.Equal(t, at(csv, "spec", "installModes"), any(modes), "the CSV's install modes")

			assert.Equal(t, tc.objects, c.Objects)
			require.Len(t, c.Manifests, len(others))
			byRef := map[fbc.ObjectRef]map[string]any{}
			for _, f := range others {
				ref := fbc.ObjectRef{APIVersion: at(f.obj, "apiVersion").(string), Kind: at(f.obj, "kind").(string),
					Name: at(f.obj, "metadata", "name").(string)}
				byRef[ref] = f.obj
			}
			for i, ref := range c.Objects {
				m, err := c.Manifest(i)
				require.NoError(t, err)
				assert.Equal(t, byRef[ref], m, "manifest %d is %v", i, ref)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// headContents loads a snapshot text and gives its one package's head's contents.
func headContents(t *testing.T, snap []byte) *fbc.Contents {
	t.Helper()
	c, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": string(snap)}))
	require.NoError(t, err, "%s", snap)
	require.Len(t, c.PackageNames(), 1)
	p, _ := c.Package(c.PackageNames()[0])
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	return head.Contents
}

// assertSameContents checks that two Contents hold the same data (CRDs compared decoded:
// a folder's are compact JSON, a snapshot's canonical).
func assertSameContents(t *testing.T, want, got *fbc.Contents) {
	t.Helper()
	require.NotNil(t, got)
	assert.Equal(t, want.Install, got.Install)
	assert.Equal(t, want.Manifests, got.Manifests)
	assert.Equal(t, want.Objects, got.Objects)
	assert.Equal(t, want.Permissions, got.Permissions)
	assert.Equal(t, want.ClusterPermissions, got.ClusterPermissions)
	assert.Equal(t, want.Deployments, got.Deployments)
	assert.Equal(t, want.OwnedCRDs, got.OwnedCRDs)
	assert.Equal(t, want.RequiredCRDs, got.RequiredCRDs)
	require.Len(t, got.CRDs, len(want.CRDs))
	for i := range want.CRDs {
		w, err := want.CRD(i)
		require.NoError(t, err)
		g, err := got.CRD(i)
		require.NoError(t, err)
		assert.Equal(t, w, g, "CRD %d", i)
	}
}

// TestInstallSnapshotRoundTrip: a snapshot keeps the install strategy and the manifests
// whole (written, loaded: the same Contents; written again: the same bytes), and so does
// the JSON a cache of pulled contents writes.
func TestInstallSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	for _, bundle := range []string{"kube-green-0.7.1", "keycloak-operator-26.7.1", "nfs-provisioner-operator-0.0.9"} {
		t.Run(bundle, func(t *testing.T) {
			t.Parallel()
			want, err := fbc.ContentsFromFolder(filepath.Join(realBundles(t), bundle, "manifests"))
			require.NoError(t, err)

			cat, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": simpleCatalog("p")}))
			require.NoError(t, err)
			p, _ := cat.Package("p")
			head, err := p.HeadBundle("")
			require.NoError(t, err)
			head.Contents = want
			snap := roundTrip(t, cat)
			assert.Contains(t, string(snap), "\n        install:\n          csvName: ")
			assertSameContents(t, want, headContents(t, snap))

			text, err := json.Marshal(want)
			require.NoError(t, err)
			var cached fbc.Contents
			require.NoError(t, json.Unmarshal(text, &cached))
			assertSameContents(t, want, &cached)
		})
	}
}

// TestInstallBundleObjectMatchesFolder: the olm.bundle.object properties of a real catalog
// of the older shape (kube-green 0.7.1, the v4.16 catalog's head) give the same contents as
// that bundle's folder, and a snapshot keeps them.
func TestInstallBundleObjectMatchesFolder(t *testing.T) {
	t.Parallel()
	c, err := fbc.Load(refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green"))
	require.NoError(t, err)
	p, _ := c.Package("kube-green")
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	require.Equal(t, "kube-green.v0.7.1", head.Name)
	folder, err := fbc.ContentsFromFolder(filepath.Join(realBundles(t), "kube-green-0.7.1", "manifests"))
	require.NoError(t, err)

	assertSameContents(t, folder, head.Contents)
	spec, err := head.Contents.DeploymentSpec(0)
	require.NoError(t, err)
	assert.Equal(t, json.Number("1"), at(spec, "replicas"))
	for _, name := range p.BundleNames() {
		if name != head.Name {
			assert.Nil(t, p.Bundles[name].Contents, "%s heads no channel: its contents are dropped", name)
		}
	}
	assertSameContents(t, folder, headContents(t, roundTrip(t, c)))
}

// oldSnapshot is a snapshot written before the install strategy was kept: contents without
// install and manifests.
const oldSnapshot = `apiVersion: odlm-render.io/v1alpha1
kind: CatalogSnapshot
metadata:
  name: old
spec:
  source:
    type: fbc
    ref: old
  packages:
  - name: p
    defaultChannel: stable
    channels:
    - name: stable
      head: p.v1
      entries:
      - name: p.v1
    bundles:
    - name: p.v1
      version: 1.0.0
      contents:
        crds: []
        deployments: [p-operator]
        objects:
        - {apiVersion: v1, kind: Service, name: p-metrics}
`

// TestSnapshotWithoutInstall: a snapshot written before this change still loads, with no
// install strategy and no manifests, and is written again as it was.
func TestSnapshotWithoutInstall(t *testing.T) {
	t.Parallel()
	c := headContents(t, []byte(oldSnapshot))
	require.NotNil(t, c)
	assert.Nil(t, c.Install)
	assert.Nil(t, c.Manifests)
	assert.Equal(t, []string{"p-operator"}, c.Deployments)
	assert.Equal(t, []fbc.ObjectRef{{APIVersion: "v1", Kind: "Service", Name: "p-metrics"}}, c.Objects)
	_, err := c.DeploymentSpec(0)
	assert.ErrorContains(t, err, "no install strategy")
	_, err = c.Manifest(0)
	assert.ErrorContains(t, err, "manifest 0: the contents hold 0 manifests")

	cat, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": oldSnapshot}))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, fbc.WriteSnapshot(cat, &buf, fbc.SnapshotMeta{Name: "old", Source: fbc.SnapshotSource{Type: "fbc", Ref: "old"}}))
	assert.Equal(t, oldSnapshot, buf.String())
}

// TestSnapshotInstallErrors: install and manifests are read strictly, and errors name the
// field.
func TestSnapshotInstallErrors(t *testing.T) {
	t.Parallel()
	const install = `
        install:
          csvName: p.v1
          deployments:
          - name: p-operator
            spec: {"replicas":1}
`
	const manifests = `
        manifests:
        - {"apiVersion":"v1","kind":"Service","metadata":{"name":"p-metrics"}}
`
	cases := []struct {
		name, contents, want string
	}{
		{name: "valid", contents: install + manifests},
		{name: "unknown install field", contents: install + "          bogus: 1\n" + manifests,
			want: `contents: install: unknown field "bogus"`},
		{name: "install not a mapping", contents: "\n        install: [1]\n",
			want: "contents: install: expected a mapping, got a list"},
		{name: "unknown deployment field", contents: install + "            replicas: 2\n" + manifests,
			want: `contents: install: deployments element 0: unknown field "replicas"`},
		{name: "spec not a mapping", contents: strings.Replace(install, `{"replicas":1}`, "[1]", 1) + manifests,
			want: "contents: install: deployments element 0: spec: expected a mapping, got a list"},
		{name: "unknown webhook field", contents: install + "          webhooks:\n          - {type: ValidatingAdmissionWebhook, bogus: 1}\n" + manifests,
			want: `contents: install: webhooks: json: unknown field "bogus"`},
		{name: "webhook field of the wrong type", contents: install + "          webhooks:\n          - {containerPort: x}\n" + manifests,
			want: "contents: install: webhooks: json: cannot unmarshal string"},
		{name: "manifests without install", contents: manifests, want: "contents: manifests: given without install"},
		{name: "install without manifests", contents: install,
			want: "contents: manifests: 0, for 1 objects"},
		{name: "manifest of another object", contents: install + strings.Replace(manifests, "p-metrics", "other", 1),
			want: `contents: manifests element 0 is v1 Service "other", objects element 0 is v1 Service "p-metrics"`},
		{name: "manifest not a mapping", contents: install + "\n        manifests: [1]\n",
			want: `contents: field "manifests" element 0: expected a mapping, got`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			snap := oldSnapshot + strings.TrimPrefix(tc.contents, "\n")
			_, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": snap}))
			if tc.want == "" {
				require.NoError(t, err)
				c := headContents(t, []byte(snap))
				spec, err := c.DeploymentSpec(0)
				require.NoError(t, err)
				assert.Equal(t, map[string]any{"replicas": json.Number("1")}, spec)
				return
			}
			assert.ErrorContains(t, err, tc.want)
			assert.ErrorContains(t, err, `bundle "p.v1"`)
		})
	}
}

// csvWith is a small CSV whose spec has the given JSON members besides the install strategy.
func csvWith(spec string) string {
	return `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
 "metadata":{"name":"x.v1","annotations":{"a":"<b> & c"}},
 "spec":{"install":{"strategy":"deployment","spec":{"deployments":[
   {"name":"x","label":{},"spec":{"replicas":1,"ratio":1.50,"big":12345678901234567890,"s":"<&>"}}]}}` + spec + `}}`
}

// TestInstallSynthetic covers what the real bundles lack: owned APIServices, empty lists and
// maps, exact numbers, text encoding/json escapes; and the errors of Manifest and
// DeploymentSpec.
func TestInstallSynthetic(t *testing.T) {
	t.Parallel()
	c, err := fbc.ContentsFromManifests([]fbc.ManifestFile{
		{Name: "csv.json", Data: []byte(csvWith(`,"webhookdefinitions":[],
 "apiservicedefinitions":{"owned":[{"group":"b.example.com","version":"v1","name":"x"},{"group":"a.example.com","version":"v2beta1"}]}`))},
		{Name: "cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {k: \"<&>\", m: \"1.50\"}\n---\n")},
	})
	require.NoError(t, err)
	require.NotNil(t, c.Install)
	assert.Equal(t, []string{"v1.b.example.com", "v2beta1.a.example.com"}, c.Install.APIServices)
	assert.Nil(t, c.Install.Webhooks, "an empty list is none")
	require.Len(t, c.Install.Deployments, 1)
	assert.Nil(t, c.Install.Deployments[0].Label, "an empty mapping is none")
	assert.Equal(t, `{"big":12345678901234567890,"ratio":1.50,"replicas":1,"s":"<&>"}`, string(c.Install.Deployments[0].Spec),
		"canonical JSON, numbers as written")
	assert.Equal(t, `{"apiVersion":"v1","data":{"k":"<&>","m":"1.50"},"kind":"ConfigMap","metadata":{"name":"cm"}}`, string(c.Manifests[0]))

	text, err := json.Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(text), `\u003c`, "encoding/json escapes HTML")
	var cached fbc.Contents
	require.NoError(t, json.Unmarshal(text, &cached))
	assert.Equal(t, c.Install, cached.Install, "canonical again")
	assert.Equal(t, c.Manifests, cached.Manifests)

	_, err = c.Manifest(1)
	assert.ErrorContains(t, err, "manifest 1: the contents hold 1 manifests")
	_, err = c.Manifest(-1)
	assert.ErrorContains(t, err, "manifest -1")
	_, err = c.DeploymentSpec(1)
	assert.ErrorContains(t, err, "install deployment 1: the install strategy has 1 deployments")
	c.Install.Deployments[0].Spec = json.RawMessage("null")
	_, err = c.DeploymentSpec(0)
	assert.ErrorContains(t, err, `install deployment "x": spec: expected a JSON object, got null`)
	spec, err := (&fbc.Contents{Install: &fbc.Install{Deployments: []fbc.InstallDeployment{{Spec: json.RawMessage(`{"n":0.10}`)}}}}).DeploymentSpec(0)
	require.NoError(t, err)
	spec["added"] = true // the caller's to modify
	assert.Equal(t, map[string]any{"n": json.Number("0.10"), "added": true}, spec)

	_, err = fbc.ContentsFromManifests([]fbc.ManifestFile{{Name: "csv.json", Data: []byte(strings.Replace(csvWith(""), `"spec":{"replicas":1,"ratio":1.50,"big":12345678901234567890,"s":"<&>"}`, `"spec":[1]`, 1))}})
	assert.ErrorContains(t, err, `csv.json: document 1: ClusterServiceVersion: install deployment "x": spec: not a JSON object`)

	var bad fbc.Contents
	err = json.Unmarshal([]byte(`{"Objects":[{"APIVersion":"v1","Kind":"Service","Name":"s"}],"Install":{"csvName":"x"}}`), &bad)
	assert.ErrorContains(t, err, "manifests: 0, for 1 objects")
	require.NoError(t, json.Unmarshal([]byte(`{"Deployments":["d"]}`), &bad), "a cache entry written before install was kept")
	assert.Nil(t, bad.Install)
}

// TestInstallBundleObjectErrors: a bundle object that is not a JSON object is refused, and
// a bundle whose objects hold no CSV has no install strategy (and so no manifests).
func TestInstallBundleObjectErrors(t *testing.T) {
	t.Parallel()
	withObject := func(obj string) string {
		return strings.Replace(oldShapeCatalog(csvJSON), "- type: olm.bundle.object\n",
			"- type: olm.bundle.object\n  value: {data: "+b64(obj)+"}\n- type: olm.bundle.object\n", 1)
	}
	_, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": withObject("null")}))
	assert.ErrorContains(t, err, "the manifest is not a JSON object")

	c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": withObject(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`)}))
	require.NoError(t, err)
	p, _ := c.Package("old")
	head, err := p.HeadBundle("")
	require.NoError(t, err)
	require.NotNil(t, head.Contents.Install)
	assert.Equal(t, "old.v0.1.0-csv", head.Contents.Install.CSVName)
	assert.Nil(t, head.Contents.Install.Deployments)
	m, err := head.Contents.Manifest(0)
	require.NoError(t, err)
	assert.Equal(t, "s", at(m, "metadata", "name"))

	noCSV := strings.Replace(withObject(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`),
		"- type: olm.bundle.object\n  value: {data: "+b64(csvJSON)+"}\n", "", 1)
	require.NotContains(t, noCSV, b64(csvJSON))
	c, err = fbc.Load(writeTree(t, map[string]string{"c.yaml": noCSV}))
	require.NoError(t, err)
	p, _ = c.Package("old")
	head, err = p.HeadBundle("")
	require.NoError(t, err)
	assert.Nil(t, head.Contents.Install)
	assert.Nil(t, head.Contents.Manifests)
	assert.Len(t, head.Contents.Objects, 1)
	roundTrip(t, c)
}
