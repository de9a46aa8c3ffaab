package inputs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/inputs"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestReadPathsWalksFoldersInOrderAndSkipsHiddenAndOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	write(t, dir, "a/x.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	write(t, dir, "c.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	write(t, dir, ".hidden/h.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hidden}\n")
	write(t, dir, "notes.txt", "not yaml: [")
	objs, err := inputs.ReadPaths([]string{dir, "-"}, strings.NewReader("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"))
	require.NoError(t, err)
	var names []string
	for _, o := range objs {
		names = append(names, o.Name())
	}
	assert.Equal(t, []string{"a", "b", "c", "s"}, names)
	assert.Equal(t, "-", objs[3].Source.File)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	objs, err := inputs.ReadPaths([]string{"-"}, strings.NewReader(`
apiVersion: v1
kind: ConfigMap
metadata: {name: res}
---
apiVersion: kpt.dev/v1
kind: Kptfile
metadata: {name: pkg}
---
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
---
apiVersion: v1
kind: ConfigMap
metadata: {name: fnconfig, annotations: {config.kubernetes.io/local-config: "true"}}
---
schema: olm.package
name: p
`))
	require.NoError(t, err)
	set, err := inputs.Classify(objs)
	require.NoError(t, err)
	assert.Len(t, set.Resources, 1)
	assert.Len(t, set.Local, 3)
	assert.Len(t, set.CatalogBlobs, 1)

	objs, err = inputs.ReadPaths([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: ConfigMap\n---\nfoo: bar\n"))
	require.NoError(t, err)
	_, err = inputs.Classify(objs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-:4: not a Kubernetes object")
}

func TestLoadCatalogWithoutAnythingIsNil(t *testing.T) {
	t.Parallel()
	cat, err := inputs.LoadCatalog(nil, nil)
	require.NoError(t, err)
	assert.Nil(t, cat)
}

// snapshotDoc is a small CatalogSnapshot, as `odlm-render catalog extract` writes it.
const snapshotDoc = `apiVersion: odlm-render.io/v1alpha1
kind: CatalogSnapshot
metadata:
  name: test
spec:
  source:
    type: fbc
    ref: test
  packages:
  - name: foo
    defaultChannel: stable
    channels:
    - name: stable
      head: foo.v1.0.0
      entries:
      - name: foo.v1.0.0
    bundles:
    - name: foo.v1.0.0
      version: "1.0.0"
      image: quay.io/example/foo:v1.0.0
      installModes:
      - {type: AllNamespaces, supported: true}
`

func TestClassifyCatalogSnapshots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		apiVersion string
		kind       string
		want       string // resources, local or catalog
	}{
		{"a CatalogSnapshot", "odlm-render.io/v1alpha1", "CatalogSnapshot", "catalog"},
		{"a version this one does not read: the loader says so", "odlm-render.io/v9", "CatalogSnapshot", "catalog"},
		{"another group's kind of that name", "example.com/v1", "CatalogSnapshot", "resources"},
		{"odlm-render's configuration", "odlm-render.io/v1alpha1", "RenderConfig", "local"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(strings.Replace(snapshotDoc, "odlm-render.io/v1alpha1", tc.apiVersion, 1), "CatalogSnapshot", tc.kind, 1)
			objs, err := inputs.ReadPaths([]string{"-"}, strings.NewReader(doc))
			require.NoError(t, err)
			set, err := inputs.Classify(objs)
			require.NoError(t, err)
			got := map[string]int{"resources": len(set.Resources), "local": len(set.Local), "catalog": len(set.CatalogBlobs)}
			assert.Equal(t, 1, got[tc.want], "%v", got)
			assert.Equal(t, tc.want == "catalog", inputs.IsCatalogBlob(objs[0]))
			assert.Equal(t, tc.want == "catalog", inputs.IsCatalogSnapshot(objs[0]))
		})
	}
}

func TestLoadCatalogFromASnapshotAmongInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"alone", snapshotDoc, ""},
		{"with FBC blobs of another package", snapshotDoc + "---\nschema: olm.package\nname: bar\n", ""},
		{"a wrong-typed field: the file, the package's line and the field", strings.Replace(snapshotDoc, `version: "1.0.0"`, "version: {major: 1}", 1),
			`-:10 (document 0): package "foo": bundle "foo.v1.0.0": CatalogSnapshot: field "version": expected a string, got a mapping`},
		{"an unknown version", strings.Replace(snapshotDoc, "v1alpha1", "v9", 1),
			`-:1 (document 0): CatalogSnapshot: apiVersion "odlm-render.io/v9" is not supported (this version reads odlm-render.io/v1alpha1)`},
		{"a package also among the FBC blobs", snapshotDoc + "---\nschema: olm.package\nname: foo\n",
			`-:24 (document 1): package "foo": olm.package defined twice: first at -:10 (document 0)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := inputs.ReadPaths([]string{"-"}, strings.NewReader(tc.doc))
			require.NoError(t, err)
			set, err := inputs.Classify(objs)
			require.NoError(t, err)
			require.Empty(t, set.Resources)
			cat, err := inputs.LoadCatalog(nil, set.CatalogBlobs)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			p, ok := cat.Package("foo")
			require.True(t, ok)
			head, err := p.Channels["stable"].Head()
			require.NoError(t, err)
			assert.Equal(t, "foo.v1.0.0", head)
			assert.Equal(t, "AllNamespaces", string(p.Bundles["foo.v1.0.0"].InstallModes[0].Type))
		})
	}
}

// TestSnapshotObjectsAreDistinct: the same object in two --snapshot files took the value of
// whichever file sorted last, without a word. Two different objects of one identity are an
// error naming both places; identical copies are one object.
func TestSnapshotObjectsAreDistinct(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, value string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: storage, namespace: apps}\ndata: {class: "+value+"}\n"), 0o600))
		return p
	}
	a, b, c := write("a.yaml", "gp3"), write("b.yaml", "gp3"), write("c.yaml", "io2")

	snap, err := inputs.LoadSnapshot(a, b)
	require.NoError(t, err, "identical copies are fine")
	assert.Equal(t, 1, snap.Len())

	_, err = inputs.LoadSnapshot(a, c)
	require.Error(t, err)
	assert.Equal(t, c+":1: ConfigMap apps/storage is also at "+a+":1 with other contents: a snapshot holds each object once", err.Error())
}

// TestReadPathsBoundsTheTotal: each file under the per-file cap, but together over the total
// one: the file that crosses it is an error naming the cap and the variable that sets it,
// and an administrator's larger total lets the same files through.
func TestReadPathsBoundsTheTotal(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {pad: \"" + strings.Repeat("x", 500) + "\"}\n"
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), []byte(fmt.Sprintf(doc, i)), 0o644))
	}
	t.Setenv(fileread.EnvMaxTotalBytes, "1Ki")
	_, err := inputs.ReadPaths([]string{dir}, nil)
	require.ErrorContains(t, err, "f1.yaml: the files read so far and this one hold more than 1024 bytes together")
	require.ErrorContains(t, err, fileread.EnvMaxTotalBytes)
	assert.True(t, fileread.IsLimit(err))
	t.Setenv(fileread.EnvMaxTotalBytes, "2Ki")
	objs, err := inputs.ReadPaths([]string{dir}, nil)
	require.NoError(t, err)
	assert.Len(t, objs, 3)
}
