package inputs_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestLoadReadsGivenThenPathsAndChainsSnapshotThenLive: the documents a front door sorted
// come first, then the paths; catalog blobs among both build the catalog; the snapshot is
// read before the live cluster.
func TestLoadReadsGivenThenPathsAndChainsSnapshotThenLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "in/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: read}\n---\nschema: olm.package\nname: bar\n")
	write(t, dir, "snap/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: exported, namespace: ns}\n")
	given, err := manifest.Decode("given.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: given}\n"))
	require.NoError(t, err)
	live := cluster.NewSnapshot(nil)
	in, sources, err := inputs.Load(inputs.Request{
		Given:     inputs.Set{Resources: given},
		Paths:     []string{filepath.Join(dir, "in")},
		Snapshots: []string{filepath.Join(dir, "snap")},
		Live:      func() (cluster.Reader, error) { return live, nil },
	})
	require.NoError(t, err)
	var names []string
	for _, o := range in.Objects {
		names = append(names, o.Name())
	}
	assert.Equal(t, []string{"given", "read"}, names)
	require.NotNil(t, in.Catalog)
	_, ok := in.Catalog.Package("bar")
	assert.True(t, ok, "the catalog blob among the paths is read")
	require.Len(t, sources, 2)
	assert.Equal(t, []cluster.Origin{cluster.OriginSnapshot, cluster.OriginLive}, []cluster.Origin{sources[0].Origin, sources[1].Origin})
	assert.Same(t, live, sources[1].Reader)
}

// TestLoadErrorsCarryTheFrontDoorsNames: each front door names its paths and snapshots in
// its own words; the live hook's error is its own.
func TestLoadErrorsCarryTheFrontDoorsNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "ok.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name string
		req  inputs.Request
		want string
	}{
		{"paths, unnamed", inputs.Request{Paths: []string{missing}}, "stat " + missing + ": no such file or directory"},
		{"paths, named", inputs.Request{Paths: []string{missing}, Names: inputs.Names{Paths: "inputs"}}, "inputs: stat " + missing + ": no such file or directory"},
		{"not an object", inputs.Request{Paths: []string{"-"}, Stdin: strings.NewReader("foo: bar\n"), Names: inputs.Names{Paths: "inputs"}}, "inputs: -:1: "},
		{"catalog", inputs.Request{Catalogs: []string{missing}, Names: inputs.Names{Paths: "inputs"}}, missing + ": stat " + missing},
		{"snapshots", inputs.Request{Snapshots: []string{missing}, Names: inputs.Names{Snapshots: "--snapshot"}}, "--snapshot: stat " + missing},
		{"live", inputs.Request{Paths: []string{filepath.Join(dir, "ok.yaml")}, Live: func() (cluster.Reader, error) { return nil, errors.New("--live: no kubeconfig") }}, "--live: no kubeconfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := inputs.Load(tc.req)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), "%q does not start with %q", err, tc.want)
		})
	}
}

// TestLoadLeavesTheGivenSetAlone: appending what the paths hold never writes into the
// arrays of the front door's set.
func TestLoadLeavesTheGivenSetAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: read}\n")
	given, err := manifest.Decode("given.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"))
	require.NoError(t, err)
	set := inputs.Set{Resources: given[:1:2]}
	_, _, err = inputs.Load(inputs.Request{Given: set, Paths: []string{dir}})
	require.NoError(t, err)
	assert.Equal(t, "b", given[1].Name())
}
