package plan_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// appCatalog is app-operator, whose bundle requires db-operator, with or without db-operator.
func appCatalog(t *testing.T, withDB bool) *catalog.Catalog {
	t.Helper()
	doc := `{schema: olm.package, name: app-operator, defaultChannel: stable}
---
{schema: olm.channel, package: app-operator, name: stable, entries: [{name: app-operator.v1.0.0}]}
---
{schema: olm.bundle, package: app-operator, name: app-operator.v1.0.0, image: x, properties: [{type: olm.package, value: {packageName: app-operator, version: 1.0.0}}, {type: olm.package.required, value: {packageName: db-operator, versionRange: ">=1.0.0"}}]}
`
	if withDB {
		doc += `---
{schema: olm.package, name: db-operator, defaultChannel: stable}
---
{schema: olm.channel, package: db-operator, name: stable, entries: [{name: db-operator.v1.0.0}, {name: db-operator.v1.1.0, replaces: db-operator.v1.0.0}]}
---
{schema: olm.bundle, package: db-operator, name: db-operator.v1.0.0, image: y, properties: [{type: olm.package, value: {packageName: db-operator, version: 1.0.0}}]}
---
{schema: olm.bundle, package: db-operator, name: db-operator.v1.1.0, image: z, properties: [{type: olm.package, value: {packageName: db-operator, version: 1.1.0}}]}
`
	}
	b := fbc.NewBuilder(catalog.LoadOptions{})
	require.NoError(t, b.AddBytes("catalog.yaml", []byte(doc)))
	c, err := b.Catalog()
	require.NoError(t, err)
	return c
}

// dbSub is the cluster's Subscription to db-operator in namespace apps, at db-operator.v1.0.0.
const dbSub = `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: db, namespace: apps},
spec: {name: db-operator, channel: stable, source: example, sourceNamespace: openshift-marketplace, installPlanApproval: Automatic},
status: {installedCSV: db-operator.v1.0.0, currentCSV: db-operator.v1.0.0}}`

// renderedSub is the render's Subscription to app-operator in namespace apps.
func renderedSub(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: app-operator, namespace: apps},
spec: {name: app-operator, channel: stable, source: example, sourceNamespace: openshift-marketplace, installPlanApproval: Automatic}}`), &m))
	return m
}

// TestOLMCheck: OLM's own resolver on the namespace the render leads to.
func TestOLMCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		withDB    bool
		cluster   []string
		pathError string
		note      string
		// dependency is the headline of the plan's second operator, "" when there is none
		dependency string
		hops       int
	}{
		{name: "a dependency OLM adds", withDB: true,
			dependency: "apps/db-operator-stable-example-openshift-marketplace (db-operator, channel stable): install db-operator.v1.1.0"},
		{name: "a dependency the namespace has, updated with its own hops", withDB: true,
			cluster: []string{dbSub, `{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: db-operator.v1.0.0, namespace: apps,
annotations: {operatorframework.io/properties: '{"properties":[{"type":"olm.package","value":{"packageName":"db-operator","version":"1.0.0"}}]}'}},
spec: {version: 1.0.0}, status: {phase: Succeeded}}`},
			dependency: "apps/db (db-operator, channel stable): upgrade db-operator.v1.0.0 -> db-operator.v1.1.0", hops: 1},
		{name: "a dependency no catalog offers", withDB: false,
			pathError: "OLM's own resolver cannot resolve namespace apps (constraints not satisfiable): nothing installs or updates there; app-operator.v1.0.0 requires package db-operator >=1.0.0, which no catalog given offers"},
		{name: "a Subscription whose package the catalogs lack is left out", withDB: true,
			cluster:    []string{sub("apps", "tools", "tools-operator", "tools-operator.v2.0.0", false), csv("apps", "tools-operator.v2.0.0")},
			note:       "OLM's own resolver resolves namespace apps without Subscription(s) tools, whose packages the catalogs given do not have",
			dependency: "apps/db-operator-stable-example-openshift-marketplace (db-operator, channel stable): install db-operator.v1.1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat := appCatalog(t, tc.withDB)
			in := install(t, cat, "apps", "app-operator", "stable")
			in.CatalogSource = "openshift-marketplace/example"
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, tc.cluster...),
				Rendered: []map[string]any{renderedSub(t)}})
			require.NoError(t, err)
			op := p.Operators[0]
			if tc.dependency == "" {
				require.Len(t, p.Operators, 1)
			} else {
				require.Len(t, p.Operators, 2)
				dep := p.Operators[1]
				assert.Equal(t, tc.dependency, strings.SplitN(string(plan.Plan{Operators: []plan.Operator{dep}}.Text()), "\n", 2)[0])
				assert.Equal(t, "apps/app-operator", dep.DependencyOf)
				assert.Len(t, dep.Path, tc.hops)
			}
			assert.Equal(t, tc.pathError, op.PathError)
			if tc.note != "" {
				assert.Contains(t, op.Notes, tc.note, strings.Join(op.Notes, "\n"))
			}
		})
	}
}
