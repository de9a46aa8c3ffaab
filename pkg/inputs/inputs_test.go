package inputs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/pkg/inputs"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestReadPathsWalksFoldersInOrderAndSkipsHiddenAndOtherFiles(t *testing.T) {
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
	cat, err := inputs.LoadCatalog(nil, nil)
	require.NoError(t, err)
	assert.Nil(t, cat)
}
