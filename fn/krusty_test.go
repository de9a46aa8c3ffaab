package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// krustyBuild runs kustomize in-process (kustomize/api's krusty, what `kustomize build`
// calls) with exec functions enabled, as `--enable-alpha-plugins --enable-exec` do.
func krustyBuild(t *testing.T, dir string, exec bool) (string, error) {
	t.Helper()
	opts := krusty.MakeDefaultOptions()
	pc := types.EnabledPluginConfig(types.BploUseStaticallyLinked)
	pc.FnpLoadingOptions.EnableExec = exec
	opts.PluginConfig = pc
	resMap, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return "", err
	}
	out, err := resMap.AsYaml()
	return string(out), err
}

// TestKrustyRunsTheExample is TestKustomizeBuildRunsTheExample in-process, through
// kustomize/api: the function as an exec transformer gives exactly what the engine renders.
func TestKrustyRunsTheExample(t *testing.T) {
	t.Parallel()
	root := exampleRepo(t)
	out, err := krustyBuild(t, filepath.Join(root, "examples", "kustomize"), true)
	require.NoError(t, err)
	assertRendersTheExample(t, []byte(out))

	// without exec functions enabled kustomize skips the function silently
	out, err = krustyBuild(t, filepath.Join(root, "examples", "kustomize"), false)
	require.NoError(t, err)
	assert.NotContains(t, out, "kind: Subscription")
}

// TestKrustyFailsOnErrorResults: an error result fails the in-process build too (kustomize
// reads only the exit status; the function prints the errors on its stderr).
func TestKrustyFailsOnErrorResults(t *testing.T) {
	t.Parallel()
	dir := kustomizeDir(t, fnData+"/bad-request")
	out, err := krustyBuild(t, dir, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exit status 1")
	assert.Empty(t, out)
}
