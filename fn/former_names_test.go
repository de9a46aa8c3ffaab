package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormerOptionNamesAreStillRead: noOLM (now odlmNoOLM) in a RenderConfig or a ConfigMap
// renders as the new name does, with a warning naming the new name; both names at once are
// an error.
func TestFormerOptionNamesAreStillRead(t *testing.T) {
	t.Parallel()
	const input = "../testdata/render/no-olm-tracking-configmaps/input"
	renderWith := func(fc string) (string, error) {
		return execute(t, resourceList(t, input, fc))
	}
	want, err := renderWith("apiVersion: odlm-render.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec: {odlmNoOLM: true}\n")
	require.NoError(t, err)
	require.Contains(t, want, "opreq-", "tracking ConfigMaps")
	for _, tc := range []struct{ name, fc, says string }{
		{"RenderConfig", "apiVersion: odlm-render.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec: {noOLM: true}\n", "functionConfig RenderConfig: noOLM is now odlmNoOLM (odlm-no-olm)"},
		{"ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {no-olm: \"true\"}\n", "functionConfig ConfigMap: no-olm is now odlmNoOLM (odlm-no-olm)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := renderWith(tc.fc)
			require.NoError(t, err)
			assert.Contains(t, got, tc.says)
			assert.Equal(t, itemsOf(want), itemsOf(got), "the same objects")
		})
	}
	_, err = renderWith("apiVersion: odlm-render.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec: {noOLM: true, odlmNoOLM: false}\n")
	require.ErrorContains(t, err, "noOLM and odlmNoOLM are one option")
}

// itemsOf is a ResourceList's text up to its functionConfig (echoed) and results.
func itemsOf(rl string) string {
	items, _, _ := strings.Cut(rl, "\nfunctionConfig:")
	items, _, _ = strings.Cut(items, "\nresults:")
	return items
}
