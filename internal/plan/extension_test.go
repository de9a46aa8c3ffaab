package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// extension is a ClusterExtension installing pkg into ns, with installed as its status's
// bundle ("" for none) and channels as its spec's.
func extension(name, ns, pkg, installed, channels string, odlm bool) string {
	labels := "{}"
	if odlm {
		labels = `{operator.ibm.com/opreq-control: "true"}`
	}
	return `{apiVersion: olm.operatorframework.io/v1, kind: ClusterExtension, metadata: {name: ` + name + `, labels: ` + labels +
		`}, spec: {namespace: ` + ns + `, source: {sourceType: Catalog, catalog: {packageName: ` + pkg + `, channels: ` + channels +
		`}}}, status: {install: {bundle: {name: "` + installed + `"}}}}`
}

// TestBuildFromAClusterExtension: with OLM v1 the installed bundle and channel come from the
// ClusterExtension of the install's name and package; one of another package is not it.
func TestBuildFromAClusterExtension(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	in := install(t, cat, "costs", kokuPkg, "beta")
	for _, tc := range []struct {
		name, cluster, from, fromChannel, action string
	}{
		{"installed", extension(kokuPkg, "costs", kokuPkg, "koku-metrics-operator.v4.3.1", "[alpha]", true), "koku-metrics-operator.v4.3.1", "alpha", plan.ActionUpgrade},
		{"several channels", extension(kokuPkg, "costs", kokuPkg, "koku-metrics-operator.v4.4.1", "[alpha, beta]", true), "koku-metrics-operator.v4.4.1", "", plan.ActionUnchanged},
		{"another package", extension(kokuPkg, "costs", "other", "other.v1.0.0", "[]", true), "", "", plan.ActionInstall},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := plan.Build(plan.Request{OLMv1: true, Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, tc.cluster)})
			require.NoError(t, err)
			op := p.Operators[0]
			assert.Equal(t, tc.action, op.Action)
			assert.Equal(t, tc.from, op.From)
			assert.Equal(t, tc.fromChannel, op.FromChannel)
		})
	}
}

// TestBuildRemovedClusterExtensions: ODLM's ClusterExtensions whose package no install has
// are removals; others are not.
func TestBuildRemovedClusterExtensions(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	in := install(t, cat, "costs", kokuPkg, "beta")
	p, err := plan.Build(plan.Request{OLMv1: true, Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t,
		extension(kokuPkg, "costs", kokuPkg, "koku-metrics-operator.v4.4.1", "[beta]", true),
		extension("gone", "lab", "gone-operator", "gone-operator.v1.0.0", "[stable]", true),
		extension("not-odlms", "lab", "not-odlms", "not-odlms.v1.0.0", "[]", false))})
	require.NoError(t, err)
	require.Len(t, p.Operators, 2)
	gone := p.Operators[1]
	assert.Equal(t, plan.ActionRemove, gone.Action)
	assert.Equal(t, "lab/gone", gone.Namespace+"/"+gone.Name)
	assert.Equal(t, "gone-operator.v1.0.0", gone.From)
	assert.Equal(t, "stable", gone.FromChannel)
}
