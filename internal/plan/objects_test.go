package plan_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/plan"
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
			assert.Equal(t, tc.want, p.Objects.Changed[0].Fields)
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
		{APIVersion: "example.com/v1", Kind: "Thing", Namespace: "ns", Name: "gone"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "old"},
	}, p.Objects.Removed)
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
	assert.Equal(t, []plan.FieldChange{{Path: "data.url", Change: plan.FieldChanged, Old: `"x"`, New: "(value hidden)"}}, p.Objects.Changed[0].Fields)
	assert.Equal(t, []plan.FieldChange{
		{Path: "data.password", Change: plan.FieldChanged, Old: "(value hidden)", New: "(value hidden)"},
		{Path: "data.user", Change: plan.FieldAdded, New: "(value hidden)"},
	}, p.Objects.Changed[1].Fields)
	j, err := p.JSON()
	require.NoError(t, err)
	for _, out := range []string{string(j), string(p.Text()), string(p.Markdown())} {
		for _, secret := range []string{"new-secret", "old-secret", "b2xkLXNlY3JldA", "bmV3LXNlY3JldA", "admin"} {
			assert.NotContains(t, out, secret)
		}
		assert.Contains(t, out, "data.password")
	}
}

// TestClusterSecretValuesHidden: a value of any cluster Secret (one a template may read) is
// hidden wherever a rendered object holds it.
func TestClusterSecretValuesHidden(t *testing.T) {
	t.Parallel()
	p := buildObjects(t, []string{
		`{apiVersion: v1, kind: Secret, metadata: {name: db, namespace: other}, data: {token: dGVtcGxhdGUtcmVhZC12YWx1ZQ==}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {token: "x"}}`,
	}, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns}, data: {token: "template-read-value"}}`)
	require.Len(t, p.Objects.Changed, 1)
	assert.Equal(t, []plan.FieldChange{{Path: "data.token", Change: plan.FieldChanged, Old: `"x"`, New: "(value hidden)"}}, p.Objects.Changed[0].Fields)
}
