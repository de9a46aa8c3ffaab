package upgradepath_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// oracle compares Find with OLM v0's own resolver (internal/olmresolve: OLM's step resolver
// on the catalog served as opm serve serves it), for every channel of pkg and every bundle
// of the package as the installed CSV (those not in the channel ask what a channel change
// does): Find's hops to the channel head must be the updates OLM makes, one InstallPlan at a
// time. It returns the cases that differ, "channel installed: find | olm".
//
// Find answers the path question alone, so the package is given to OLM without its
// dependencies (olm.package.required, olm.gvk.required, olm.constraint): with a dependency
// no catalog offers, OLM does not update at all (TestOLMStaysWhenADependencyIsMissing).
func oracle(t *testing.T, pkg *catalog.Package) []string {
	t.Helper()
	r, err := olmresolve.ServePackages(context.Background(), "olm/cs", olmresolve.WithoutDependencies(pkg))
	require.NoError(t, err)
	defer r.Close()

	var differ []string
	walked := 0
	defer func() {
		assert.Positive(t, walked, "no installed CSV of %s has an update: the comparison says nothing", pkg.Name)
	}()
	for _, ch := range pkg.ChannelNames() {
		for _, installed := range pkg.BundleNames() {
			b := pkg.Bundles[installed]
			path, err := upgradepath.Find(pkg, ch, installed, "")
			hops := path.Hops
			var noPath *upgradepath.NoPathError
			if errors.As(err, &noPath) {
				hops = noPath.Hops
			} else if err != nil {
				differ = append(differ, fmt.Sprintf("%s %s: find: %v", ch, installed, err))
				continue
			}
			var found []string
			for _, h := range append(hops, path.Loop...) {
				found = append(found, h.From+" -> "+h.To)
			}
			if len(path.Loop) > 0 {
				found = append(found, "(repeats)")
			}
			walk, err := r.Upgrade(context.Background(), olmresolve.Operator{
				Package: pkg.Name, Channel: ch, CatalogSource: "olm/cs", InstalledCSV: installed, InstalledVersion: b.Version,
			})
			require.NoError(t, err, "%s %s", ch, installed)
			var olm []string
			for _, h := range walk.Hops() {
				olm = append(olm, h[0]+" -> "+h[1])
			}
			if len(olm) > 0 {
				walked++
			}
			if walk.Repeats != "" {
				olm = append(olm, "(repeats)")
			}
			if strings.Join(found, ", ") != strings.Join(olm, ", ") {
				differ = append(differ, fmt.Sprintf("%s %s: %s | %s", ch, installed, strings.Join(found, ", "), strings.Join(olm, ", ")))
			}
		}
	}
	return differ
}

// TestOLMStaysWhenADependencyIsMissing: every bundle of openshift-fusion-access-operator
// requires kernel-module-management >=2.4.0, which its catalog does not offer (a cluster
// gets it from another CatalogSource): given that catalog alone, OLM makes no update from
// v0.9.3, where Find, which does not look at dependencies, finds five hops. The plan must say
// so (issue 33).
func TestOLMStaysWhenADependencyIsMissing(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "certified-v4.20/openshift-fusion-access-operator", "openshift-fusion-access-operator")
	r, err := olmresolve.ServePackages(context.Background(), "olm/cs", pkg)
	require.NoError(t, err)
	defer r.Close()
	installed := "openshift-fusion-access-operator.v0.9.3"
	walk, err := r.Upgrade(context.Background(), olmresolve.Operator{
		Package: pkg.Name, Channel: "stable-v1", CatalogSource: "olm/cs", InstalledCSV: installed, InstalledVersion: pkg.Bundles[installed].Version,
	})
	require.NoError(t, err)
	assert.Empty(t, walk.Hops())
	path, err := upgradepath.Find(pkg, "stable-v1", installed, "")
	require.NoError(t, err)
	assert.Len(t, path.Hops, 5)
}

// TestFindAgreesWithOLMsResolverOnTheSyntheticPackage: every channel and installed CSV of
// the synthetic package.
func TestFindAgreesWithOLMsResolverOnTheSyntheticPackage(t *testing.T) {
	t.Parallel()
	assert.Empty(t, oracle(t, syntheticPackage(t)))
}

// TestFindAgreesWithOLMsResolverOnRealCatalogs: every channel and installed CSV of the real
// upgrade catalogs (reference data).
func TestFindAgreesWithOLMsResolverOnRealCatalogs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ folder, pkg string }{
		{"community-v4.20/koku-metrics-operator", "koku-metrics-operator"},
		{"community-v4.20/jumpstarter-operator", "jumpstarter-operator"},
		{"certified-v4.20/cloud-native-postgresql", "cloud-native-postgresql"},
		{"certified-v4.20/openshift-fusion-access-operator", "openshift-fusion-access-operator"},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			t.Parallel()
			assert.Empty(t, oracle(t, loadPackage(t, tc.folder, tc.pkg)))
		})
	}
}

// divergences is a package r with the channels where a hand-written resolver most easily
// parts from OLM's, taken from OLM's own resolver tests (resolver_test.go: the olm.deprecated
// property, skipRange edges):
//   - deprecated: 1.1.0 replaces the 1.0.0 and carries olm.deprecated; 1.2.0 replaces 1.1.0;
//   - loop: the older 1.0.0's skipRange holds the head 2.0.0's version;
//   - single: one bundle whose skipRange reaches older versions the catalog pruned.
const divergences = `schema: olm.package
name: r
defaultChannel: deprecated
---
schema: olm.channel
package: r
name: deprecated
entries:
- {name: r.v1.0.0}
- {name: r.v1.1.0, replaces: r.v1.0.0}
- {name: r.v1.2.0, replaces: r.v1.1.0}
---
schema: olm.channel
package: r
name: loop
entries:
- {name: r.v1.0.0, skipRange: ">=2.0.0 <3.0.0"}
- {name: r.v2.0.0, replaces: r.v1.0.0}
---
schema: olm.channel
package: r
name: single
entries:
- {name: r.v3.0.0, skipRange: ">=0.5.0 <3.0.0"}
`

func divergencesPackage(t *testing.T) *catalog.Package {
	t.Helper()
	b := fbc.NewBuilder(catalog.LoadOptions{})
	doc := divergences
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0", "2.0.0", "3.0.0"} {
		extra := ""
		if v == "1.1.0" {
			extra = ", {type: olm.deprecated, value: {}}"
		}
		doc += fmt.Sprintf("---\n{schema: olm.bundle, name: r.v%s, package: r, image: x, properties: [{type: olm.package, value: {packageName: r, version: %s}}%s]}\n", v, v, extra)
	}
	require.NoError(t, b.AddBytes("divergences.yaml", []byte(doc)))
	cat, err := b.Catalog()
	require.NoError(t, err)
	pkg, ok := cat.Package("r")
	require.True(t, ok)
	return pkg
}

// TestFindAgreesWithOLMsResolverWhereItOnceDiverged: the deprecated property, the loop at
// the head, for every channel and installed bundle.
func TestFindAgreesWithOLMsResolverWhereItOnceDiverged(t *testing.T) {
	t.Parallel()
	pkg := divergencesPackage(t)
	assert.Empty(t, oracle(t, pkg))

	path, err := upgradepath.Find(pkg, "deprecated", "r.v1.0.0", "")
	var noPath *upgradepath.NoPathError
	require.ErrorAs(t, err, &noPath, "OLM never takes the deprecated r.v1.1.0, and r.v1.2.0 does not replace r.v1.0.0")
	assert.Empty(t, path.Hops)

	path, err = upgradepath.Find(pkg, "loop", "r.v2.0.0", "")
	require.NoError(t, err)
	require.Len(t, path.Loop, 2, "from the head, back to r.v1.0.0 and to the head again")
	assert.Equal(t, "r.v1.0.0", path.Loop[0].To)
	assert.Equal(t, upgradepath.ViaSkipRange, path.Loop[0].Via)
	path, err = upgradepath.Find(pkg, "loop", "r.v1.0.0", "")
	require.NoError(t, err)
	require.Len(t, path.Hops, 1)
	require.Len(t, path.Loop, 1, "at the head, back to r.v1.0.0, where it was")
}

// TestFindFromAPrunedCSV: the installed CSV r.v0.9.0 is no longer in the catalog; the
// channel's only bundle has a skipRange holding its version, which OLM reads from the
// cluster's CSV: one hop, as OLM's resolver makes it.
func TestFindFromAPrunedCSV(t *testing.T) {
	t.Parallel()
	pkg := divergencesPackage(t)
	path, err := upgradepath.FindFrom(pkg, "single", upgradepath.Installed{CSV: "r.v0.9.0", Version: "0.9.0"}, "")
	require.NoError(t, err)
	require.Len(t, path.Hops, 1)
	assert.Equal(t, upgradepath.Hop{From: "r.v0.9.0", To: "r.v3.0.0", Via: upgradepath.ViaSkipRange, Version: "3.0.0"}, path.Hops[0])

	_, err = upgradepath.Find(pkg, "single", "r.v0.9.0", "")
	require.ErrorIs(t, err, upgradepath.ErrNotInChannel, "without the cluster's version, the skipRange cannot be read")

	r, err := olmresolve.ServePackages(context.Background(), "olm/cs", pkg)
	require.NoError(t, err)
	defer r.Close()
	walk, err := r.Upgrade(context.Background(), olmresolve.Operator{
		Package: "r", Channel: "single", CatalogSource: "olm/cs", InstalledCSV: "r.v0.9.0", InstalledVersion: "0.9.0",
	})
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"r.v0.9.0", "r.v3.0.0"}}, walk.Hops())
}
