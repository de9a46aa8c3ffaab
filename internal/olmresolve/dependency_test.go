package olmresolve_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// TestDependencyCandidatesAreOLMs: internal/fbc's Catalog.Candidate, given a bundle's
// requirement (Bundle.Requirements), picks the bundle and channel OLM v0's own resolver
// installs for a dependency from one catalog (cases after OLM's resolver tests: two providers
// of a GVK, default channels first, a version range below the head, a deprecated bundle).
func TestDependencyCandidatesAreOLMs(t *testing.T) {
	t.Parallel()
	bundle := func(pkg, v, extra string) string {
		return `{schema: olm.bundle, package: ` + pkg + `, name: ` + pkg + `.v` + v + `, image: x/` + pkg + `:` + v +
			`, properties: [{type: olm.package, value: {packageName: ` + pkg + `, version: ` + v + `}}` + extra + `]}`
	}
	const gvk = `, {type: olm.gvk, value: {group: example.com, version: v1, kind: Thing}}`
	for _, tc := range []struct {
		name     string
		requires string // the dependent's requirement property
		docs     []string
		want     string // "bundle channel"
	}{
		{name: "a GVK two packages provide: the first by name",
			requires: `, {type: olm.gvk.required, value: {group: example.com, version: v1, kind: Thing}}`,
			docs: []string{
				`{schema: olm.package, name: zeta, defaultChannel: stable}`, `{schema: olm.channel, package: zeta, name: stable, entries: [{name: zeta.v1.0.0}]}`, bundle("zeta", "1.0.0", gvk),
				`{schema: olm.package, name: alpha, defaultChannel: stable}`, `{schema: olm.channel, package: alpha, name: stable, entries: [{name: alpha.v1.0.0}]}`, bundle("alpha", "1.0.0", gvk),
			},
			want: "alpha.v1.0.0 stable"},
		{name: "a GVK: default channels before the others",
			requires: `, {type: olm.gvk.required, value: {group: example.com, version: v1, kind: Thing}}`,
			docs: []string{
				`{schema: olm.package, name: alpha, defaultChannel: stable}`,
				`{schema: olm.channel, package: alpha, name: stable, entries: [{name: alpha.v1.0.0}]}`,
				`{schema: olm.channel, package: alpha, name: extra, entries: [{name: alpha.v2.0.0}]}`,
				bundle("alpha", "1.0.0", ""), bundle("alpha", "2.0.0", gvk),
				`{schema: olm.package, name: zeta, defaultChannel: stable}`, `{schema: olm.channel, package: zeta, name: stable, entries: [{name: zeta.v1.0.0}]}`, bundle("zeta", "1.0.0", gvk),
			},
			want: "zeta.v1.0.0 stable"},
		{name: "a package range below the head",
			requires: `, {type: olm.package.required, value: {packageName: db, versionRange: "<2.0.0"}}`,
			docs: []string{
				`{schema: olm.package, name: db, defaultChannel: stable}`,
				`{schema: olm.channel, package: db, name: stable, entries: [{name: db.v1.0.0}, {name: db.v1.5.0, replaces: db.v1.0.0}, {name: db.v2.0.0, replaces: db.v1.5.0}]}`,
				bundle("db", "1.0.0", ""), bundle("db", "1.5.0", ""), bundle("db", "2.0.0", ""),
			},
			want: "db.v1.5.0 stable"},
		{name: "a package: another channel when the default has no match",
			requires: `, {type: olm.package.required, value: {packageName: db, versionRange: ">=3.0.0"}}`,
			docs: []string{
				`{schema: olm.package, name: db, defaultChannel: stable}`,
				`{schema: olm.channel, package: db, name: stable, entries: [{name: db.v1.0.0}]}`,
				`{schema: olm.channel, package: db, name: fast, entries: [{name: db.v3.0.0}]}`,
				bundle("db", "1.0.0", ""), bundle("db", "3.0.0", ""),
			},
			want: "db.v3.0.0 fast"},
		{name: "a package: never a deprecated bundle",
			requires: `, {type: olm.package.required, value: {packageName: db, versionRange: ">=1.0.0"}}`,
			docs: []string{
				`{schema: olm.package, name: db, defaultChannel: stable}`,
				`{schema: olm.channel, package: db, name: stable, entries: [{name: db.v1.0.0}, {name: db.v2.0.0, replaces: db.v1.0.0}]}`,
				bundle("db", "1.0.0", ""), bundle("db", "2.0.0", `, {type: olm.deprecated, value: {}}`),
			},
			want: "db.v1.0.0 stable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := append([]string{
				`{schema: olm.package, name: app, defaultChannel: stable}`,
				`{schema: olm.channel, package: app, name: stable, entries: [{name: app.v1.0.0}]}`,
				bundle("app", "1.0.0", tc.requires),
			}, tc.docs...)
			b := fbc.NewBuilder(catalog.LoadOptions{})
			require.NoError(t, b.AddBytes("catalog.yaml", []byte(strings.Join(docs, "\n---\n"))))
			cat, err := b.Catalog()
			require.NoError(t, err)

			app, _ := cat.Package("app")
			dep := app.Bundles["app.v1.0.0"]
			reqs, err := dep.Requirements()
			require.NoError(t, err)
			require.Len(t, reqs, 1)
			got, ok := cat.Candidate(reqs[0].Match)
			require.True(t, ok)
			assert.Equal(t, tc.want, got.Bundle.Name+" "+got.Channel)

			served, err := olmresolve.FromCatalog(cat)
			require.NoError(t, err)
			r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: served})
			res, err := r.Resolve(subscribed("app", "cs"), ns)
			require.NoError(t, err)
			var olm []string
			for _, s := range res.Created {
				olm = append(olm, s.Status.CurrentCSV+" "+s.Spec.Channel)
			}
			assert.Equal(t, []string{tc.want}, olm, "OLM's own resolver")
		})
	}
}
