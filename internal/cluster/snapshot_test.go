package cluster_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

const export = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg, namespace: ns}
  data: {k: from-snapshot}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: fast}
  provisioner: x
`

func TestSnapshotReadsKubectlExports(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "export.yaml"), []byte(export), 0o644))
	s, err := inputs.LoadSnapshot(dir)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	for _, tc := range []struct {
		name                        string
		apiVersion, kind, ns, named string
		found                       bool
	}{
		{"namespaced object", "v1", "ConfigMap", "ns", "cfg", true},
		{"another version of the same group finds it", "v2", "ConfigMap", "ns", "cfg", true},
		{"other namespace", "v1", "ConfigMap", "other", "cfg", false},
		{"cluster-scoped object ignores the namespace", "storage.k8s.io/v1", "StorageClass", "ns", "fast", true},
		{"other group", "example.com/v1", "ConfigMap", "ns", "cfg", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, found, err := s.Get(tc.apiVersion, tc.kind, tc.ns, tc.named)
			require.NoError(t, err)
			assert.Equal(t, tc.found, found)
		})
	}
}

type fixed map[string]map[string]any

func (f fixed) Get(_, _, _, name string) (map[string]any, bool, error) {
	o, ok := f[name]
	return o, ok, nil
}

func TestChainPrefersEarlierSources(t *testing.T) {
	chain := cluster.Chain{
		{Origin: cluster.OriginInputs, Reader: fixed{"a": {"from": "inputs"}}},
		{Origin: cluster.OriginSnapshot, Reader: fixed{"a": {"from": "snapshot"}, "b": {"from": "snapshot"}}},
		{Origin: cluster.OriginLive, Reader: fixed{"c": {"from": "live"}}},
	}
	for name, want := range map[string]cluster.Origin{"a": cluster.OriginInputs, "b": cluster.OriginSnapshot, "c": cluster.OriginLive} {
		obj, origin, found, err := chain.GetWithOrigin("v1", "ConfigMap", "ns", name)
		require.NoError(t, err)
		require.True(t, found)
		assert.Equal(t, want, origin)
		assert.Equal(t, string(want), obj["from"])
	}
	_, _, found, err := chain.GetWithOrigin("v1", "ConfigMap", "ns", "zzz")
	require.NoError(t, err)
	assert.False(t, found)
}

func TestSnapshotListsAKind(t *testing.T) {
	objs, err := manifest.Decode("s.yaml", []byte(`apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata: {name: b, namespace: olm}
---
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata: {name: a, namespace: olm}
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: a, namespace: olm}
`))
	require.NoError(t, err)
	chain := cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: cluster.NewSnapshot(objs)}, {Origin: cluster.OriginLive, Reader: fixed{}}}
	got, err := chain.List("operators.coreos.com/v1alpha1", "CatalogSource", "")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "a", manifest.Get(got[0], "metadata", "name"))
	assert.Equal(t, "b", manifest.Get(got[1], "metadata", "name"))
}
