package plan_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

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
{schema: olm.channel, package: db-operator, name: stable, entries: [{name: db-operator.v1.0.0}]}
---
{schema: olm.bundle, package: db-operator, name: db-operator.v1.0.0, image: y, properties: [{type: olm.package, value: {packageName: db-operator, version: 1.0.0}}]}
`
	}
	b := catalog.NewBuilder(catalog.LoadOptions{})
	require.NoError(t, b.AddBytes("catalog.yaml", []byte(doc)))
	c, err := b.Catalog()
	require.NoError(t, err)
	return c
}

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
	}{
		{name: "a dependency OLM adds", withDB: true,
			note: "OLM also installs db-operator.v1.0.0 (package db-operator), a dependency, in namespace apps"},
		{name: "a dependency no catalog offers", withDB: false,
			pathError: "OLM's own resolver cannot resolve namespace apps (constraints not satisfiable): nothing installs or updates there; app-operator.v1.0.0 requires package db-operator >=1.0.0, which no catalog given offers"},
		{name: "a Subscription whose package the catalogs lack is left out", withDB: true,
			cluster: []string{sub("apps", "tools", "tools-operator", "tools-operator.v2.0.0", false), csv("apps", "tools-operator.v2.0.0")},
			note:    "OLM's own resolver resolves namespace apps without Subscription(s) tools, whose packages the catalogs given do not have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat := appCatalog(t, tc.withDB)
			in := install(t, cat, "apps", "app-operator", "stable")
			in.CatalogSource = "openshift-marketplace/example"
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, tc.cluster...),
				Rendered: []map[string]any{renderedSub(t)}})
			require.NoError(t, err)
			require.Len(t, p.Operators, 1)
			op := p.Operators[0]
			assert.Equal(t, tc.pathError, op.PathError)
			if tc.note != "" {
				assert.Contains(t, op.Notes, tc.note, strings.Join(op.Notes, "\n"))
			}
		})
	}
}
