package upgradepath_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// synthetic is a package p with small channels, one per question:
//   - two: from 1.0.0, 1.1.0 replaces it and 1.2.0's skipRange contains it;
//   - skipped: 1.2.0 replaces 1.0.0 and skips 1.1.0, which also replaces 1.0.0;
//   - alpha and beta: the channel promotion of OLM's documentation (beta's first entry
//     replaces 1.0.0, which is only in alpha).
const synthetic = `schema: olm.package
name: p
defaultChannel: two
---
schema: olm.channel
package: p
name: two
entries:
- {name: p.v1.0.0}
- {name: p.v1.1.0, replaces: p.v1.0.0}
- {name: p.v1.2.0, replaces: p.v1.1.0, skipRange: ">=1.0.0 <1.2.0"}
- {name: p.v1.3.0, replaces: p.v1.2.0}
---
schema: olm.channel
package: p
name: skipped
entries:
- {name: p.v1.0.0}
- {name: p.v1.1.0, replaces: p.v1.0.0}
- {name: p.v1.2.0, replaces: p.v1.0.0, skips: [p.v1.1.0]}
---
schema: olm.channel
package: p
name: alpha
entries:
- {name: p.v1.0.0}
- {name: p.v1.1.0, replaces: p.v1.0.0}
- {name: p.v1.2.0, replaces: p.v1.1.0}
---
schema: olm.channel
package: p
name: beta
entries:
- {name: p.v1.1.0, replaces: p.v1.0.0}
---
schema: olm.deprecations
package: p
entries:
- {reference: {schema: olm.bundle, name: p.v1.1.0}, message: "p.v1.1.0 loses data; use 1.2.0"}
`

func syntheticPackage(t *testing.T) *catalog.Package {
	t.Helper()
	b := fbc.NewBuilder(catalog.LoadOptions{})
	doc := synthetic
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0", "1.3.0"} {
		doc += fmt.Sprintf("---\n{schema: olm.bundle, name: p.v%s, package: p, image: x, properties: [{type: olm.package, value: {packageName: p, version: %s}}]}\n", v, v)
	}
	require.NoError(t, b.AddBytes("synthetic.yaml", []byte(doc)))
	cat, err := b.Catalog()
	require.NoError(t, err)
	pkg, ok := cat.Package("p")
	require.True(t, ok)
	return pkg
}

func hop(from, to string, via upgradepath.Via) upgradepath.Hop {
	return upgradepath.Hop{From: "p.v" + from, To: "p.v" + to, Via: via, Version: to}
}

func TestSyntheticChoices(t *testing.T) {
	t.Parallel()
	pkg := syntheticPackage(t)
	deprecated := hop("1.0.0", "1.1.0", upgradepath.ViaReplaces)
	d, ok := pkg.DeprecationFor("olm.bundle", "p.v1.1.0")
	require.True(t, ok)
	require.Equal(t, "p.v1.1.0 loses data; use 1.2.0", d.Message)
	deprecated.Deprecation = &d
	for _, tc := range []struct {
		name, channel, installed, target string
		hops                             []upgradepath.Hop
		reason                           error
		detail                           string
	}{
		// Two candidates qualify: OLM takes the one nearest the head, by skipRange.
		{name: "two candidates: the nearest the head", channel: "two", installed: "p.v1.0.0", hops: []upgradepath.Hop{
			hop("1.0.0", "1.2.0", upgradepath.ViaSkipRange), hop("1.2.0", "1.3.0", upgradepath.ViaReplaces),
		}},
		{name: "two candidates: the other is passed over", channel: "two", installed: "p.v1.0.0", target: "p.v1.1.0",
			hops:   []upgradepath.Hop{hop("1.0.0", "1.2.0", upgradepath.ViaSkipRange), hop("1.2.0", "1.3.0", upgradepath.ViaReplaces)},
			reason: upgradepath.ErrNoSuccessor, detail: "OLM goes from p.v1.0.0 to p.v1.2.0 (skipRange), past p.v1.1.0"},
		{name: "a skipped entry is never a candidate", channel: "skipped", installed: "p.v1.0.0", target: "p.v1.1.0",
			hops:   []upgradepath.Hop{hop("1.0.0", "1.2.0", upgradepath.ViaReplaces)},
			reason: upgradepath.ErrNoSuccessor, detail: "OLM never updates to p.v1.1.0: another entry of the channel skips it"},
		{name: "from a skipped entry, by skips", channel: "skipped", installed: "p.v1.1.0",
			hops: []upgradepath.Hop{hop("1.1.0", "1.2.0", upgradepath.ViaSkips)}},
		{name: "a channel change to an entry replacing what beta lacks", channel: "beta", installed: "p.v1.0.0",
			hops: []upgradepath.Hop{deprecated}},
		{name: "a channel change beta cannot follow", channel: "beta", installed: "p.v1.2.0",
			reason: upgradepath.ErrNotInChannel,
			detail: "no entry of channel beta replaces it, skips it or has a skipRange containing its version"},
		{name: "the head is behind the installed version", channel: "beta", installed: "p.v1.1.0", target: "p.v1.1.0"},
		{name: "a pin behind, by version", channel: "alpha", installed: "p.v1.2.0", target: "p.v1.0.0",
			reason: upgradepath.ErrTargetBehind, detail: "p.v1.0.0 is version 1.0.0, p.v1.2.0 is 1.2.0: OLM does not go back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := upgradepath.Find(pkg, tc.channel, tc.installed, tc.target)
			assertPath(t, got, err, tc.hops, tc.reason, tc.detail)
		})
	}
}

// entries builds a channel of package q from "name<replaces|skipRange" items.
func entries(items ...string) []catalog.ChannelEntry {
	var out []catalog.ChannelEntry
	for _, it := range items {
		name, rest, _ := strings.Cut(it, "<")
		replaces, skipRange, _ := strings.Cut(rest, "|")
		out = append(out, catalog.ChannelEntry{Name: name, Replaces: replaces, SkipRange: skipRange})
	}
	return out
}

// handMade is a package q whose channel c has the given entries, each with a bundle of the
// version after its "q.v".
func handMade(es []catalog.ChannelEntry) *catalog.Package {
	pkg := &catalog.Package{Name: "q", DefaultChannel: "c", Bundles: map[string]*catalog.Bundle{},
		Channels: map[string]*catalog.Channel{"c": {Name: "c", Package: "q", Entries: es}}}
	for _, e := range es {
		pkg.Bundles[e.Name] = &catalog.Bundle{Name: e.Name, Package: "q", Version: strings.TrimPrefix(e.Name, "q.v")}
	}
	return pkg
}

func TestBadGraphsAreErrorsNotLoops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		pkg     *catalog.Package
		channel string
		want    string
	}{
		{name: "no package", want: "upgradepath: no package"},
		{name: "no such channel", pkg: handMade(entries("q.v1")), channel: "d", want: `package "q": channel "d": channel not found (channels: [c])`},
		{name: "no head", pkg: handMade(entries("q.v1<q.v2", "q.v2<q.v1")), want: "no channel head"},
		{name: "two heads", pkg: handMade(entries("q.v1", "q.v2")), want: "q.v1, q.v2"},
		{name: "a cycle below the head", pkg: handMade(entries("q.v3<q.v2", "q.v2<q.v1", "q.v1<q.v2")), want: "a cycle in the replaces chain from the head q.v3 reaches q.v2 again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := upgradepath.Find(tc.pkg, tc.channel, "q.v1", "")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestOddGraphs(t *testing.T) {
	t.Parallel()
	qhop := func(from, to string, via upgradepath.Via) upgradepath.Hop {
		return upgradepath.Hop{From: "q.v" + from, To: "q.v" + to, Via: via, Version: to}
	}
	// The skipRange of the tail contains the head's version: OLM would go round.
	round := handMade(entries("q.v3.0.0<q.v2.0.0", "q.v2.0.0<q.v1.0.0", "q.v1.0.0<|>=3.0.0"))
	got, err := upgradepath.Find(round, "", "q.v3.0.0", "q.v0.1.0")
	assert.ErrorIs(t, err, upgradepath.ErrTargetNotInChannel)
	assert.Equal(t, upgradepath.Path{}, got)
	got, err = upgradepath.Find(round, "", "q.v2.0.0", "q.v1.0.0")
	require.NoError(t, err, "OLM follows edges, not versions")
	assert.Equal(t, []upgradepath.Hop{qhop("2.0.0", "3.0.0", upgradepath.ViaReplaces), qhop("3.0.0", "1.0.0", upgradepath.ViaSkipRange)}, got.Hops)

	cycle := handMade(entries("q.v3.0.0<q.v2.0.0|>=1.0.0 <3.0.0", "q.v2.0.0<q.v1.0.0", "q.v1.0.0<|>=3.0.0"))
	cycle.Bundles["q.v9"] = &catalog.Bundle{Name: "q.v9", Version: "not a version"}
	cycle.Channels["c"].Entries = append(cycle.Channels["c"].Entries, catalog.ChannelEntry{Name: "q.v9", SkipRange: "not a range"})
	cycle.Channels["c"].Entries[0].Skips = []string{"q.v9"}
	_, err = upgradepath.Find(cycle, "", "q.v1.0.0", "q.v2.0.0")
	var np *upgradepath.NoPathError
	require.ErrorAs(t, err, &np)
	assert.Equal(t, "OLM comes back to q.v1.0.0: a cycle of updates", np.Detail)
	assert.Equal(t, []upgradepath.Hop{qhop("1.0.0", "3.0.0", upgradepath.ViaSkipRange), qhop("3.0.0", "1.0.0", upgradepath.ViaSkipRange)}, np.Hops)
	assert.Equal(t, "package q, channel c: no upgrade path from q.v1.0.0 to q.v2.0.0: no successor leads to the target (OLM comes back to q.v1.0.0: a cycle of updates)", err.Error())

	// An installed CSV with no bundle in the catalog: replaces still works, skipRange cannot.
	_, err = upgradepath.Find(cycle, "", "q.v0.5.0", "")
	assert.ErrorIs(t, err, upgradepath.ErrNotInChannel)
	// q.v9 is skipped, and its skipRange does not parse: an update from it, never to it.
	got, err = upgradepath.Find(cycle, "", "q.v9", "q.v3.0.0")
	require.NoError(t, err)
	assert.Equal(t, []upgradepath.Hop{{From: "q.v9", To: "q.v3.0.0", Via: upgradepath.ViaSkips, Version: "3.0.0"}}, got.Hops)

	// The head is older than the entry it replaces: a target below it is not behind by
	// version, and OLM stops at the head.
	upsideDown := handMade(entries("q.v2.0.0<q.v3.0.0", "q.v3.0.0"))
	_, err = upgradepath.Find(upsideDown, "", "q.v2.0.0", "q.v3.0.0")
	require.ErrorAs(t, err, &np)
	assert.Equal(t, upgradepath.ErrNoSuccessor, np.Reason)
	assert.Equal(t, "OLM stops at the channel head q.v2.0.0", np.Detail)

	// Versions that do not read: behind is by the order of the replaces chain.
	unversioned := handMade(entries("q.vy<q.vx", "q.vx"))
	_, err = upgradepath.Find(unversioned, "", "q.vy", "q.vx")
	require.ErrorAs(t, err, &np)
	assert.Equal(t, upgradepath.ErrTargetBehind, np.Reason)
	assert.Equal(t, "q.vx is farther from the head than q.vy in the channel's replaces chain: OLM does not go back", np.Detail)
	got, err = upgradepath.Find(unversioned, "", "q.vx", "")
	require.NoError(t, err)
	assert.Equal(t, []upgradepath.Hop{{From: "q.vx", To: "q.vy", Via: upgradepath.ViaReplaces, Version: "y"}}, got.Hops)
}

func TestAllowsOpenShift(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		max, version string
		want         bool
		err          string
	}{
		{max: "", version: "4.99", want: true},
		{max: "4.19", version: "4.19.7", want: true},
		{max: "4.19", version: "4.20", want: false},
		{max: "4.10", version: "4.9", want: true},
		{max: `"4.20"`, version: "v4.20.0", want: true},
		{max: "4.23", version: "5.0", want: true},
		{max: "5.0", version: "4.23", want: true},
		{max: "4.22", version: "4.23", want: false},
		{max: "4.19.1", version: "4.19", err: `bundle q.v1: olm.maxOpenShiftVersion "4.19.1": not <major>.<minor> only`},
		{max: "4.19, 4.20", version: "4.19", err: "more than one olm.maxOpenShiftVersion property"},
		{max: `""`, version: "4.19", err: "empty value"},
		{max: "four", version: "4.19", err: `olm.maxOpenShiftVersion "four"`},
		{max: "4.19", version: "latest", err: `OpenShift version "latest"`},
	} {
		t.Run(tc.max+" on "+tc.version, func(t *testing.T) {
			t.Parallel()
			got, err := upgradepath.Hop{To: "q.v1", MaxOpenShiftVersion: tc.max}.AllowsOpenShift(tc.version)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestMaxOpenShiftVersionAsWritten(t *testing.T) {
	t.Parallel()
	pkg := handMade(entries("q.v1", "q.v2<q.v1", "q.v3<q.v2"))
	pkg.Bundles["q.v2"].Properties = []catalog.Property{{Type: "olm.maxOpenShiftVersion", Value: "4.10"}}
	pkg.Bundles["q.v3"].Properties = []catalog.Property{
		{Type: "olm.maxOpenShiftVersion", Value: 4.1}, {Type: "olm.maxOpenShiftVersion", Value: nil},
	}
	got, err := upgradepath.Find(pkg, "", "q.v1", "")
	require.NoError(t, err)
	require.Len(t, got.Hops, 2)
	assert.Equal(t, "4.10", got.Hops[0].MaxOpenShiftVersion)
	assert.Equal(t, "4.1, ", got.Hops[1].MaxOpenShiftVersion)
}
