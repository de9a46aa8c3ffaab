package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// obj decodes one YAML object.
func obj(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
	return m
}

// buildObjects plans the rendered docs against a snapshot of the cluster docs.
func buildObjects(t *testing.T, cluster []string, rendered ...string) plan.Plan {
	t.Helper()
	var objs []map[string]any
	for _, d := range rendered {
		objs = append(objs, obj(t, d))
	}
	p, err := plan.Build(plan.Request{Cluster: snapshot(t, cluster...), Rendered: objs})
	require.NoError(t, err)
	return p
}

// shown are field changes as the plan shows them: their exported fields only.
func shown(fields []plan.FieldChange) []plan.FieldChange {
	out := make([]plan.FieldChange, len(fields))
	for i, f := range fields {
		out[i] = plan.FieldChange{Path: f.Path, Change: f.Change, Old: f.Old, New: f.New}
	}
	return out
}

func TestObjectFieldChanges(t *testing.T) {
	t.Parallel()
	const cm = `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {a: "1"}}`
	for _, tc := range []struct {
		name, live, rendered string
		want                 []plan.FieldChange
	}{
		{"same", cm, cm, nil},
		{"cluster-managed fields are no change",
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, uid: u, resourceVersion: "9", generation: 2,
			  creationTimestamp: x, selfLink: s, managedFields: [{}], annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}",
			  deployment.kubernetes.io/revision: "3"}}, data: {a: "1"}, status: {x: 1}}`,
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, resourceVersion: "1", annotations: {deployment.kubernetes.io/revision: "1"}},
			  data: {a: "1"}, status: {x: 2}}`, nil},
		{"a field only the cluster has is left by apply",
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, labels: {x: y}}, data: {a: "1", b: "2"}}`, cm, nil},
		{"changed, added and removed fields",
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, labels: {x: y}}, data: {a: "1", gone: "x"}}`,
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, labels: {app.kubernetes.io/name: nm}}, data: {a: "2", gone: null}}`,
			[]plan.FieldChange{
				{Path: "data.a", Change: plan.FieldChanged, Old: `"1"`, New: `"2"`},
				{Path: "data.gone", Change: plan.FieldRemoved, Old: `"x"`},
				{Path: `metadata.labels["app.kubernetes.io/name"]`, Change: plan.FieldAdded, New: `"nm"`},
			}},
		{"lists of another length change whole",
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, spec: {l: [1, 2], m: [1, 2]}}`,
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, spec: {l: [1], m: [1, 3]}}`,
			[]plan.FieldChange{
				{Path: "spec.l", Change: plan.FieldChanged, Old: "[1,2]", New: "[1]"},
				{Path: "spec.m[1]", Change: plan.FieldChanged, Old: "2", New: "3"},
			}},
		{"long values are shortened",
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {a: "1"}}`,
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {a: "` + strings.Repeat("x", 100) + `"}}`,
			[]plan.FieldChange{{Path: "data.a", Change: plan.FieldChanged, Old: `"1"`, New: `"` + strings.Repeat("x", 56) + "..."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := buildObjects(t, []string{tc.live}, tc.rendered)
			if tc.want == nil {
				assert.Empty(t, p.Objects.Changed)
				assert.Equal(t, 1, p.Objects.Unchanged)
				return
			}
			require.Len(t, p.Objects.Changed, 1)
			assert.Equal(t, tc.want, shown(p.Objects.Changed[0].Fields))
		})
	}
}

func TestObjectsAddedRemoved(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: mine, namespace: ns}}`,
		`{apiVersion: example.com/v1, kind: Thing, metadata: {name: gone, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1, kind: Thing, metadata: {name: kept, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
	},
		`{apiVersion: example.com/v1beta1, kind: Thing, metadata: {name: kept, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1, kind: Thing, metadata: {name: new, namespace: ns}}`)
	assert.Equal(t, []plan.ObjectRef{{APIVersion: "example.com/v1", Kind: "Thing", Namespace: "ns", Name: "new"}}, p.Objects.Added)
	assert.Equal(t, 1, p.Objects.Unchanged)
	assert.Equal(t, []plan.ObjectRef{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "old"},
		{APIVersion: "example.com/v1", Kind: "Thing", Namespace: "ns", Name: "gone"},
	}, p.Objects.Removed, "by group (the core group first), kind, namespace and name")
}

// TestSecretValuesHidden: a Secret's values, and values holding them elsewhere, never show.
func TestSecretValuesHidden(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ns}, data: {password: b2xkLXNlY3JldA==}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {url: "x"}}`,
	},
		`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ns}, stringData: {password: new-secret, user: admin}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {url: "db://admin:new-secret@host"}}`)
	require.Len(t, p.Objects.Changed, 2)
	assert.Equal(t, []plan.FieldChange{{Path: "data.url", Change: plan.FieldChanged, Old: `"x"`, New: "(value hidden)"}}, shown(p.Objects.Changed[0].Fields))
	assert.Equal(t, []plan.FieldChange{
		{Path: "data.password", Change: plan.FieldChanged, Old: "(value hidden)", New: "(value hidden)"},
		{Path: "data.user", Change: plan.FieldAdded, New: "(value hidden)"},
	}, shown(p.Objects.Changed[1].Fields))
	j, err := p.JSON()
	require.NoError(t, err)
	for _, out := range []string{string(j), string(p.Text()), string(p.Markdown())} {
		for _, secret := range []string{"new-secret", "old-secret", "b2xkLXNlY3JldA", "bmV3LXNlY3JldA", "admin"} {
			assert.NotContains(t, out, secret)
		}
		assert.Contains(t, out, "data.password")
	}
}

// TestClusterSecretValuesHidden: a value of a cluster Secret the plan lists (one with ODLM's
// label, searched for removed objects) is hidden wherever a rendered object holds it.
func TestClusterSecretValuesHidden(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: db, namespace: other, labels: {operator.ibm.com/opreq-control: "true"}}, data: {token: dGVtcGxhdGUtcmVhZC12YWx1ZQ==}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {token: "x"}}`,
	}, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {token: "template-read-value"}}`)
	require.Len(t, p.Objects.Changed, 1)
	assert.Equal(t, []plan.FieldChange{{Path: "data.token", Change: plan.FieldChanged, Old: `"x"`, New: "(value hidden)"}}, shown(p.Objects.Changed[0].Fields))
}

// TestValuesOfAnyClusterSecretHidden: a labelled ConfigMap of the cluster holds a copy of a
// value of a Secret in the same namespace that neither the render nor ODLM's label names; the
// pull request turns the field into a literal. The old value is the Secret's: it is hidden,
// in every format.
func TestValuesOfAnyClusterSecretHidden(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: db-credentials, namespace: ns}, data: {password: czNjcjN0LWZyb20tdGhlLWNsdXN0ZXI=}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}, data: {dsn: "s3cr3t-from-the-cluster"}}`,
	}, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}, data: {dsn: "literal"}}`)
	require.Len(t, p.Objects.Changed, 1)
	assert.Equal(t, []plan.FieldChange{{Path: "data.dsn", Change: plan.FieldChanged, Old: "(value hidden)", New: `"literal"`}}, shown(p.Objects.Changed[0].Fields))
	j, err := p.JSON()
	require.NoError(t, err)
	for _, out := range []string{string(j), string(p.Text()), string(p.Markdown())} {
		assert.NotContains(t, out, "s3cr3t-from-the-cluster")
	}
}

// TestRemovedObjectsOfAnyKind: the kinds searched for removed objects are those the cluster
// holds, not a fixed list: a labelled PersistentVolumeClaim and a labelled custom resource
// the render does not produce are removed; unlabelled ones, and labelled ones it produces,
// are not.
func TestRemovedObjectsOfAnyKind(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: users, namespace: ns}}`,
		`{apiVersion: example.com/v1alpha1, kind: Sizing, metadata: {name: old, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1alpha1, kind: Sizing, metadata: {name: kept, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast, labels: {operator.ibm.com/opreq-control: "true"}}}`,
	}, `{apiVersion: example.com/v1alpha1, kind: Sizing, metadata: {name: kept, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`)
	assert.Equal(t, []plan.ObjectRef{
		{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "data"},
		{APIVersion: "example.com/v1alpha1", Kind: "Sizing", Namespace: "ns", Name: "old"},
		{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass", Name: "fast"},
	}, p.Objects.Removed)
	assert.Equal(t, []string{}, p.Notes)
}

// refusing is a snapshot that answers for some kinds with an error, and says (as a live
// cluster does) which OLM kinds it serves.
type refusing struct {
	*cluster.Snapshot
	listErr  map[string]error // by kind, for ListLabelled
	kindsErr error
	noOLM    bool
}

func (r refusing) ListLabelled(apiVersion, kind, namespace, label, value string) ([]map[string]any, error) {
	if err := r.listErr[kind]; err != nil {
		return nil, err
	}
	return r.Snapshot.ListLabelled(apiVersion, kind, namespace, label, value)
}

func (r refusing) Kinds() ([]cluster.Kind, error) {
	kinds, _ := r.Snapshot.Kinds()
	return kinds, r.kindsErr
}

func (r refusing) Serves(apiVersion, kind string) (bool, error) {
	return !r.noOLM || apiVersion != "operators.coreos.com/v1alpha1", nil
}

func (r refusing) Get(apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	if r.noOLM && apiVersion == "operators.coreos.com/v1alpha1" {
		return nil, false, fmt.Errorf("live: the cluster does not serve %s %s: %w", apiVersion, kind, cluster.ErrNotServed)
	}
	return r.Snapshot.Get(apiVersion, kind, namespace, name)
}

func (r refusing) List(apiVersion, kind, namespace string) ([]map[string]any, error) {
	if r.noOLM && apiVersion == "operators.coreos.com/v1alpha1" {
		return nil, fmt.Errorf("live: the cluster does not serve %s %s: %w", apiVersion, kind, cluster.ErrNotServed)
	}
	return r.Snapshot.List(apiVersion, kind, namespace)
}

// TestRemovedObjectsNotSearched: kinds the user may not list, and kinds discovery could not
// tell, are plan-level notes, not errors; the other kinds are still searched. Any other
// failure is an error naming the kind.
func TestRemovedObjectsNotSearched(t *testing.T) {
	t.Parallel()
	forbidden := fmt.Errorf("live: forbidden: cannot list secrets: %w", cluster.ErrForbidden)
	docs := []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1, kind: Sizing, metadata: {name: s, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
	}
	for _, tc := range []struct {
		name    string
		cluster refusing
		removed []string
		notes   []string
		err     string
	}{
		{
			name:    "forbidden kinds",
			cluster: refusing{listErr: map[string]error{"Secret": forbidden, "Sizing": forbidden}},
			removed: []string{"data"},
			notes:   []string{"not searched for removed objects: 2 kinds the user may not list (forbidden), by API group: core: Secret; example.com: Sizing"},
		},
		{
			name:    "kinds discovery could not tell",
			cluster: refusing{kindsErr: fmt.Errorf("live: %w: the discovery of metrics.k8s.io/v1beta1 failed", cluster.ErrIncompleteKinds)},
			removed: []string{"data", "s", "s"},
			notes: []string{"not searched for removed objects: the kinds the cluster did not tell (live: " + cluster.ErrIncompleteKinds.Error() +
				": the discovery of metrics.k8s.io/v1beta1 failed)"},
		},
		{
			name:    "another failure",
			cluster: refusing{listErr: map[string]error{"PersistentVolumeClaim": fmt.Errorf("live: HTTP 500")}},
			err:     "listing PersistentVolumeClaim (v1) objects with the label operator.ibm.com/opreq-control: live: HTTP 500",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.cluster.Snapshot = snapshot(t, docs...)
			p, err := plan.Build(plan.Request{Cluster: tc.cluster})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var removed []string
			for _, r := range p.Objects.Removed {
				removed = append(removed, r.Name)
			}
			assert.Equal(t, tc.removed, removed)
			assert.Equal(t, tc.notes, p.Notes)
		})
	}
}

// TestForbiddenKindsNoteByAPIGroup: however many kinds the user may not list, the note names
// each once, grouped by API group (the core group first, as "core"), groups and kinds sorted,
// and counts them; the kinds it may list are searched.
func TestForbiddenKindsNoteByAPIGroup(t *testing.T) {
	t.Parallel()
	forbidden := fmt.Errorf("live: forbidden: %w", cluster.ErrForbidden)
	docs := []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: batch/v1, kind: CronJob, metadata: {name: backup, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1, kind: Sizing, metadata: {name: small, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
		`{apiVersion: example.com/v1, kind: Cache, metadata: {name: c, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}}`,
	}
	for _, tc := range []struct {
		name    string
		refused []string
		removed []string
		note    string
	}{
		{
			name:    "one kind",
			refused: []string{"Secret"},
			removed: []string{"settings", "data", "agent", "db", "backup", "c", "small"},
			note:    "not searched for removed objects: 1 kind the user may not list (forbidden), by API group: core: Secret",
		},
		{
			name:    "many kinds of several groups",
			refused: []string{"Sizing", "StatefulSet", "PersistentVolumeClaim", "Secret", "CronJob", "DaemonSet", "Cache"},
			removed: []string{"settings"},
			note: "not searched for removed objects: 7 kinds the user may not list (forbidden), by API group: " +
				"core: PersistentVolumeClaim, Secret; apps: DaemonSet, StatefulSet; batch: CronJob; example.com: Cache, Sizing",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := refusing{Snapshot: snapshot(t, docs...), listErr: map[string]error{}}
			for _, kind := range tc.refused {
				c.listErr[kind] = forbidden
			}
			p, err := plan.Build(plan.Request{Cluster: c})
			require.NoError(t, err)
			var removed []string
			for _, r := range p.Objects.Removed {
				removed = append(removed, r.Name)
			}
			assert.Equal(t, tc.removed, removed)
			assert.Equal(t, []string{tc.note}, p.Notes)
		})
	}
}

// TestClusterWithoutOLM: a cluster that serves no OLM kinds (OLM not installed) is no error:
// every operator is a new install, and the plan says once why.
func TestClusterWithoutOLM(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	c := refusing{Snapshot: snapshot(t), noOLM: true}
	rendered := obj(t, `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: koku-metrics-operator, namespace: costs}}`)
	p, err := plan.Build(plan.Request{Installs: []render.Install{install(t, cat, "costs", kokuPkg, "beta"), install(t, cat, "other", kokuPkg, "beta")},
		Catalogs: catalog.Set{Plain: cat}, Cluster: c, Rendered: []map[string]any{rendered}})
	require.NoError(t, err)
	assert.Equal(t, []plan.ObjectRef{{APIVersion: "operators.coreos.com/v1alpha1", Kind: "Subscription", Namespace: "costs", Name: "koku-metrics-operator"}},
		p.Objects.Added, "an object of a kind not served is added")
	require.Len(t, p.Operators, 2)
	for _, op := range p.Operators {
		assert.Equal(t, plan.ActionInstall, op.Action)
		assert.Empty(t, op.From)
		assert.NotContains(t, strings.Join(op.Notes, "\n"), "OLM", "said once, at plan level")
	}
	require.Len(t, p.Notes, 1)
	assert.Contains(t, p.Notes[0], "the cluster serves no OLM kinds (operators.coreos.com/v1alpha1 Subscription, ClusterServiceVersion")
	assert.Contains(t, p.Notes[0], "installed versions, upgrade paths and removed operators could not be read")

	served, err := plan.Build(plan.Request{Installs: []render.Install{install(t, cat, "costs", kokuPkg, "beta")}, Catalogs: catalog.Set{Plain: cat}, Cluster: refusing{Snapshot: snapshot(t)}})
	require.NoError(t, err)
	assert.Equal(t, []string{}, served.Notes, "a cluster that serves them has no note")
}
