package olmv1resolve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// shapes is a package in the shapes where OLM v1's choice parts from OLM v0's: a channel whose
// head (1.1.0) is not its highest version (1.2.0), prereleases in another channel, skips and a
// skipRange, and a deprecated bundle (1.4.0) at the head of a channel.
const shapes = `schema: olm.package
name: op
defaultChannel: stable
---
schema: olm.channel
package: op
name: stable
entries:
- {name: op.v1.0.0}
- {name: op.v1.2.0, replaces: op.v1.0.0}
- {name: op.v1.1.0, replaces: op.v1.2.0}
---
schema: olm.channel
package: op
name: fast
entries:
- {name: op.v1.3.0-nightly.1}
- {name: op.v2.0.0-rc.1, replaces: op.v1.3.0-nightly.1}
---
schema: olm.channel
package: op
name: candidate
entries:
- {name: op.v1.0.0}
- {name: op.v1.1.0, replaces: op.v1.0.0}
- {name: op.v1.4.0, replaces: op.v1.1.0, skips: [op.v1.2.0], skipRange: ">=1.0.0 <1.4.0"}
---
schema: olm.deprecations
package: op
entries:
- {reference: {schema: olm.bundle, name: op.v1.4.0}, message: "1.4.0 is withdrawn"}
`

// bundles writes an olm.bundle blob per version of package pkg.
func bundles(pkg string, versions ...string) string {
	var b strings.Builder
	for _, v := range versions {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: %s\nname: %s.v%s\nimage: quay.io/example/%s-bundle:v%s\nproperties:\n- {type: olm.package, value: {packageName: %s, version: %s}}\n", pkg, pkg, v, pkg, v, pkg, v)
	}
	return b.String()
}

// TestResolveIsOperatorControllers compares Resolve with operator-controller v1.11.0's own
// resolver on the shapes package: every channel choice, version range and installed bundle.
func TestResolveIsOperatorControllers(t *testing.T) {
	t.Parallel()
	versions := []string{"1.0.0", "1.1.0", "1.2.0", "1.3.0-nightly.1", "1.4.0", "2.0.0-rc.1"}
	dir := writeCatalog(t, shapes+bundles("op", versions...))
	var reqs []oracleRequest
	for _, channels := range [][]string{nil, {"stable"}, {"fast"}, {"candidate"}, {"stable", "candidate"}, {"missing"}} {
		for _, version := range []string{"", ">=1.0.0 <1.2.0", "1.1.x", "~1.2", "1.2.0", ">=2.0.0-0", "<1.0.0", ">=1.0.0-0"} {
			reqs = append(reqs, oracleRequest{Package: "op", Channels: channels, Version: version})
		}
		for _, v := range versions {
			for _, self := range []bool{false, true} {
				reqs = append(reqs, oracleRequest{Package: "op", Channels: channels, SelfCertified: self, Installed: &oracleInstalled{Name: "op.v" + v, Version: v}})
			}
		}
		reqs = append(reqs, oracleRequest{Package: "op", Channels: channels, Version: "1.2.0", Installed: &oracleInstalled{Name: "op.v1.0.0", Version: "1.0.0"}},
			oracleRequest{Package: "op", Channels: channels, Version: "1.1.0", Installed: &oracleInstalled{Name: "op.v0.9.0", Version: "0.9.0"}})
	}
	reqs = append(reqs, oracleRequest{Package: "absent"})
	compare(t, []oracleCatalog{{Name: "shapes", Dir: dir}}, reqs)
}

// TestResolveAcrossCatalogsIsOperatorControllers: the same package in several ClusterCatalogs
// (priorities, a tie, an unavailable catalog, a deprecated choice in one of them).
func TestResolveAcrossCatalogsIsOperatorControllers(t *testing.T) {
	t.Parallel()
	one := func(version, deprecated string) string {
		text := "schema: olm.package\nname: db\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: db\nname: stable\nentries:\n- {name: db.v" + version + "}\n" + bundles("db", version)
		if deprecated != "" {
			text += "---\nschema: olm.deprecations\npackage: db\nentries:\n- {reference: {schema: olm.bundle, name: db.v" + version + "}, message: gone}\n"
		}
		return writeCatalog(t, text)
	}
	alpha, beta, gamma := one("1.0.0", ""), one("1.1.0", ""), one("1.2.0", "deprecated")
	reqs := []oracleRequest{{Package: "db"}, {Package: "db", Channels: []string{"stable"}}, {Package: "db", Version: ">=1.1.0"}}
	for _, tc := range []struct {
		name     string
		catalogs []oracleCatalog
	}{
		{"tie", []oracleCatalog{{Name: "alpha", Dir: alpha}, {Name: "beta", Dir: beta}}},
		{"priority", []oracleCatalog{{Name: "alpha", Priority: 10, Dir: alpha}, {Name: "beta", Priority: -100, Dir: beta}}},
		{"negative priorities", []oracleCatalog{{Name: "alpha", Priority: -200, Dir: alpha}, {Name: "beta", Priority: -100, Dir: beta}}},
		{"unavailable", []oracleCatalog{{Name: "alpha", Dir: alpha}, {Name: "beta", Unavailable: true, Dir: beta}}},
		{"deprecated loses to priority", []oracleCatalog{{Name: "alpha", Priority: -5, Dir: alpha}, {Name: "gamma", Priority: 100, Dir: gamma}}},
		{"deprecated alone", []oracleCatalog{{Name: "gamma", Dir: gamma}}},
		{"three", []oracleCatalog{{Name: "alpha", Dir: alpha}, {Name: "beta", Priority: 5, Dir: beta}, {Name: "gamma", Priority: 5, Dir: gamma}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			compare(t, tc.catalogs, reqs)
		})
	}
}

// TestResolveRealCatalogsIsOperatorControllers: every package of real catalogs, with no
// channel, each channel, and each bundle of a channel installed.
func TestResolveRealCatalogsIsOperatorControllers(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{"catalogs-community-v4.16/kube-green", "catalogs-community-v4.16/shipwright-operator", "catalogs-community-v4.16/koku-metrics-operator", "catalogs-community-v4.16/ecr-secret-operator"} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			dir := refdata.Path(t, rel)
			c, err := catalog.Load(dir)
			require.NoError(t, err)
			var reqs []oracleRequest
			for _, name := range c.PackageNames() {
				pkg, _ := c.Package(name)
				reqs = append(reqs, oracleRequest{Package: name})
				for _, ch := range pkg.ChannelNames() {
					reqs = append(reqs, oracleRequest{Package: name, Channels: []string{ch}})
					for _, e := range pkg.Channels[ch].Entries {
						if b := pkg.Bundles[e.Name]; b != nil {
							reqs = append(reqs, oracleRequest{Package: name, Channels: []string{ch}, Installed: &oracleInstalled{Name: b.Name, Version: b.Version}})
						}
					}
				}
			}
			compare(t, []oracleCatalog{{Name: "community", Dir: dir}}, reqs)
		})
	}
}
