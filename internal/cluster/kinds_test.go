package cluster_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

const held = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: other, namespace: ns, labels: {operator.ibm.com/opreq-control: "false"}}
---
apiVersion: example.com/v1beta1
kind: Widget
metadata: {name: w, namespace: ns, labels: {operator.ibm.com/opreq-control: "true"}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: x, namespace: ns}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: ns}
`

func heldSnapshot(t *testing.T) *cluster.Snapshot {
	t.Helper()
	objs, err := manifest.Decode("held.yaml", []byte(held))
	require.NoError(t, err)
	return cluster.NewSnapshot(objs)
}

// names are the namespace/name of objects, in order.
func names(objs []map[string]any) []string {
	out := []string{}
	for _, o := range objs {
		m := manifest.New(o)
		out = append(out, m.Namespace()+"/"+m.Name())
	}
	return out
}

func TestSnapshotKinds(t *testing.T) {
	t.Parallel()
	kinds, err := heldSnapshot(t).Kinds()
	require.NoError(t, err)
	assert.Equal(t, []cluster.Kind{
		{APIVersion: "example.com/v1beta1", Kind: "Widget"}, // one per group and kind: the first object's
		{APIVersion: "v1", Kind: "ConfigMap"},
		{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
	}, kinds)
}

func TestSnapshotListLabelled(t *testing.T) {
	t.Parallel()
	s := heldSnapshot(t)
	for _, tc := range []struct {
		name, apiVersion, kind, value string
		want                          []string
	}{
		{"the labelled one of a kind", "v1", "PersistentVolumeClaim", "true", []string{"ns/data"}},
		{"the label's value counts", "v1", "PersistentVolumeClaim", "false", []string{"ns/other"}},
		{"any version of the group", "example.com/v1", "Widget", "true", []string{"ns/w"}},
		{"none labelled", "v1", "ConfigMap", "true", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := s.ListLabelled(tc.apiVersion, tc.kind, "", "operator.ibm.com/opreq-control", tc.value)
			require.NoError(t, err)
			assert.Equal(t, tc.want, names(got))
		})
	}
}

// reader is a Reader with optional abilities, for the Chain tests.
type reader struct {
	fixed
	kinds    []cluster.Kind
	kindsErr error
	listed   []map[string]any
	listErr  error
	served   map[string]bool
}

func (r reader) Kinds() ([]cluster.Kind, error) { return r.kinds, r.kindsErr }

func (r reader) List(string, string, string) ([]map[string]any, error) { return r.listed, r.listErr }

func (r reader) Serves(_, kind string) (bool, error) { return r.served[kind], nil }

// plain is a Reader that can neither list nor tell its kinds.
type plain struct{ fixed }

func labelled(name, value string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "ns", "labels": map[string]any{"operator.ibm.com/opreq-control": value}}}
}

func TestChainKindsIsTheUnion(t *testing.T) {
	t.Parallel()
	incomplete := fmt.Errorf("live: %w: discovery of metrics.k8s.io/v1beta1 failed", cluster.ErrIncompleteKinds)
	for _, tc := range []struct {
		name    string
		chain   cluster.Chain
		want    []cluster.Kind
		wantErr error
	}{
		{
			name: "each group and kind once, in the last source's version",
			chain: cluster.Chain{
				{Origin: cluster.OriginSnapshot, Reader: heldSnapshot(t)},
				{Origin: cluster.OriginLive, Reader: reader{kinds: []cluster.Kind{{APIVersion: "example.com/v2", Kind: "Widget"}, {APIVersion: "apps/v1", Kind: "Deployment"}}}},
				{Origin: cluster.OriginInputs, Reader: plain{}},
			},
			want: []cluster.Kind{{APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "example.com/v2", Kind: "Widget"},
				{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "PersistentVolumeClaim"}},
		},
		{
			name:    "an incomplete source keeps its kinds and says so",
			chain:   cluster.Chain{{Origin: cluster.OriginLive, Reader: reader{kinds: []cluster.Kind{{APIVersion: "v1", Kind: "Secret"}}, kindsErr: incomplete}}},
			want:    []cluster.Kind{{APIVersion: "v1", Kind: "Secret"}},
			wantErr: cluster.ErrIncompleteKinds,
		},
		{
			name:    "a failing source stops the chain",
			chain:   cluster.Chain{{Origin: cluster.OriginLive, Reader: reader{kindsErr: errors.New("unreachable")}}},
			wantErr: errors.New("unreachable"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.chain.Kinds()
			switch {
			case tc.wantErr == nil:
				require.NoError(t, err)
			case errors.Is(tc.wantErr, cluster.ErrIncompleteKinds):
				require.ErrorIs(t, err, cluster.ErrIncompleteKinds)
				assert.Contains(t, err.Error(), "metrics.k8s.io/v1beta1")
			default:
				require.EqualError(t, err, tc.wantErr.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChainListLabelled(t *testing.T) {
	t.Parallel()
	notServed := fmt.Errorf("live: %w", cluster.ErrNotServed)
	forbidden := fmt.Errorf("live: %w: cannot list configmaps", cluster.ErrForbidden)
	for _, tc := range []struct {
		name    string
		chain   cluster.Chain
		want    []string
		wantErr error
	}{
		{
			name: "a source without ListLabelled is listed and filtered; the first source wins",
			chain: cluster.Chain{
				{Origin: cluster.OriginSnapshot, Reader: reader{listed: []map[string]any{labelled("a", "true"), labelled("b", "no")}}},
				{Origin: cluster.OriginLive, Reader: reader{listed: []map[string]any{labelled("a", "true"), labelled("c", "true")}}},
				{Origin: cluster.OriginInputs, Reader: plain{}},
			},
			want: []string{"ns/a", "ns/c"},
		},
		{
			name:  "a kind a source does not serve is none",
			chain: cluster.Chain{{Origin: cluster.OriginLive, Reader: reader{listErr: notServed}}},
			want:  []string{},
		},
		{
			name:    "forbidden is an error that says so",
			chain:   cluster.Chain{{Origin: cluster.OriginLive, Reader: reader{listErr: forbidden}}},
			wantErr: cluster.ErrForbidden,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.chain.ListLabelled("v1", "ConfigMap", "", "operator.ibm.com/opreq-control", "true")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, names(got))
		})
	}
}

func TestChainServes(t *testing.T) {
	t.Parallel()
	noOLM := reader{served: map[string]bool{"ConfigMap": true}}
	for _, tc := range []struct {
		name  string
		chain cluster.Chain
		kind  string
		want  bool
	}{
		{"a snapshot cannot tell: served", cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: heldSnapshot(t)}}, "Subscription", true},
		{"the live cluster says not served", cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: heldSnapshot(t)}, {Origin: cluster.OriginLive, Reader: noOLM}}, "Subscription", false},
		{"the live cluster serves it", cluster.Chain{{Origin: cluster.OriginLive, Reader: noOLM}}, "ConfigMap", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.chain.Serves("operators.coreos.com/v1alpha1", tc.kind)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestHasLabel(t *testing.T) {
	t.Parallel()
	assert.True(t, cluster.HasLabel(labelled("a", "true"), "operator.ibm.com/opreq-control", "true"))
	assert.False(t, cluster.HasLabel(labelled("a", "false"), "operator.ibm.com/opreq-control", "true"))
	assert.False(t, cluster.HasLabel(map[string]any{"metadata": "not a map"}, "k", "v"), "hostile objects are unlabelled")
	assert.False(t, cluster.HasLabel(map[string]any{"metadata": map[string]any{"labels": map[string]any{"k": 1}}}, "k", "1"))
}
