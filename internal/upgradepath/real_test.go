package upgradepath_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// loadPackage loads the one package of a folder of testdata/catalogs-upgrade, read from the
// reference folder (t skips without it).
func loadPackage(t *testing.T, folder, name string) *catalog.Package {
	t.Helper()
	cat, err := catalog.Load(refdata.Testdata(t, "catalogs-upgrade/"+folder))
	require.NoError(t, err)
	pkg, ok := cat.Package(name)
	require.True(t, ok, name)
	return pkg
}

// koku is a bundle name of koku-metrics-operator.
func koku(version string) string {
	return "koku-metrics-operator.v" + version
}

// kokuChain is the replaces chain of koku-metrics-operator's channels, tail first.
var kokuChain = []string{
	"0.9.0", "0.9.1", "0.9.2", "0.9.3", "0.9.4", "0.9.5", "0.9.6", "0.9.7", "0.9.8",
	"1.1.1", "1.1.2", "1.1.3", "1.1.4", "1.1.5", "1.1.6", "1.1.7", "1.1.8", "1.1.9", "1.2.0",
	"2.0.0", "3.0.0", "3.0.1", "3.1.0", "3.2.0", "3.2.1", "3.3.0", "3.3.1", "3.3.2",
	"4.0.0", "4.1.0", "4.2.0", "4.3.0", "4.3.1", "4.4.0", "4.4.1",
}

// kokuMinKube is the minKubeVersion of a koku-metrics-operator version's CSV: 1.24.0 from
// 3.2.0 on, none before (read in its catalog.yaml).
func kokuMinKube(version string) string {
	if slices.Index(kokuChain, version) >= slices.Index(kokuChain, "3.2.0") {
		return "1.24.0"
	}
	return ""
}

// kokuHops are the hops along kokuChain from one version to another, all by replaces: no
// entry of koku-metrics-operator has skips or a skipRange (read in its catalog.yaml).
func kokuHops(t *testing.T, from, to string) []upgradepath.Hop {
	t.Helper()
	var hops []upgradepath.Hop
	in := false
	for i, v := range kokuChain {
		if v == to {
			return hops
		}
		if v == from {
			in = true
		}
		if in {
			next := kokuChain[i+1]
			hops = append(hops, upgradepath.Hop{From: koku(v), To: koku(next), Via: upgradepath.ViaReplaces, Version: next, MinKubeVersion: kokuMinKube(next)})
		}
	}
	require.Failf(t, "bad test", "%s → %s is not along the chain", from, to)
	return nil
}

func TestKokuMetricsOperatorToTheHead(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "community-v4.20/koku-metrics-operator", "koku-metrics-operator")
	for _, from := range []string{"0.9.0", "1.1.1", "2.0.0", "3.3.2", "4.3.1", "4.4.0"} {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			got, err := upgradepath.Find(pkg, "", koku(from), "")
			require.NoError(t, err)
			assert.Equal(t, upgradepath.Path{
				Package: "koku-metrics-operator", Channel: "beta", Installed: koku(from), Target: koku("4.4.1"),
				Hops: kokuHops(t, from, "4.4.1"),
			}, got)
		})
	}
}

func TestKokuMetricsOperator(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "community-v4.20/koku-metrics-operator", "koku-metrics-operator")
	for _, tc := range []struct {
		name, channel, installed, target string
		hops                             []upgradepath.Hop
		reason                           error
		detail                           string
	}{
		{name: "to a pin ahead, one hop at a time", channel: "beta", installed: koku("3.3.2"), target: koku("4.1.0"),
			hops: kokuHops(t, "3.3.2", "4.1.0")},
		{name: "already there", channel: "beta", installed: koku("4.2.0"), target: koku("4.2.0")},
		{name: "the head installed, the head targeted", installed: koku("4.4.1")},
		{name: "a pin behind the installed version", channel: "beta", installed: koku("4.3.0"), target: koku("4.2.0"),
			hops: kokuHops(t, "4.3.0", "4.4.1"), reason: upgradepath.ErrTargetBehind,
			detail: "koku-metrics-operator.v4.2.0 is version 4.2.0, koku-metrics-operator.v4.3.0 is 4.3.0: OLM does not go back"},
		{name: "an installed CSV the channel does not know", channel: "beta", installed: koku("1.0.0"), target: koku("4.4.1"),
			reason: upgradepath.ErrNotInChannel,
			detail: "no entry of channel beta replaces it, skips it or has a skipRange containing its version"},
		{name: "a target the channel does not know", channel: "alpha", installed: koku("4.3.0"), target: koku("5.0.0"),
			reason: upgradepath.ErrTargetNotInChannel},
		// The Subscription moves from alpha to beta with alpha's 3.0.0 installed: OLM looks
		// for entries of beta with an edge from 3.0.0 (beta has the same entries as alpha).
		{name: "a channel change from alpha to beta", channel: "beta", installed: koku("3.0.0"),
			hops: kokuHops(t, "3.0.0", "4.4.1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := upgradepath.Find(pkg, tc.channel, tc.installed, tc.target)
			assertPath(t, got, err, tc.hops, tc.reason, tc.detail)
		})
	}
}

// assertPath checks the hops of a path found, or the reason, detail and hops of a path not.
func assertPath(t *testing.T, got upgradepath.Path, err error, hops []upgradepath.Hop, reason error, detail string) {
	t.Helper()
	if reason == nil {
		require.NoError(t, err)
		assert.Equal(t, hops, got.Hops)
		return
	}
	require.ErrorIs(t, err, reason)
	var np *upgradepath.NoPathError
	require.ErrorAs(t, err, &np)
	assert.Equal(t, detail, np.Detail)
	assert.Equal(t, hops, np.Hops)
	assert.Equal(t, upgradepath.Path{}, got)
}

func jumpstarter(version string) string {
	return "jumpstarter-operator.v" + version
}

// jumpstarter-operator's entries have both replaces and a skipRange: from 0.8.0, 0.8.1-rc.1
// replaces it and 0.8.1's skipRange ">=0.8.0 <0.8.1" contains it; OLM takes 0.8.1, nearer
// the head.
func TestJumpstarterOperatorSkipRange(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "community-v4.20/jumpstarter-operator", "jumpstarter-operator")
	hop := func(from, to string, via upgradepath.Via) upgradepath.Hop {
		return upgradepath.Hop{From: jumpstarter(from), To: jumpstarter(to), Via: via, Version: to, MinKubeVersion: "1.28.0"}
	}
	fromOldest := []upgradepath.Hop{
		hop("0.8.0", "0.8.1", upgradepath.ViaSkipRange),
		hop("0.8.1", "0.9.0-rc.1", upgradepath.ViaReplaces),
		hop("0.9.0-rc.1", "0.9.0-rc.2", upgradepath.ViaReplaces),
		hop("0.9.0-rc.2", "0.9.0", upgradepath.ViaReplaces),
	}
	for _, tc := range []struct {
		name, installed, target string
		hops                    []upgradepath.Hop
		reason                  error
		detail                  string
	}{
		{name: "to the head", installed: jumpstarter("0.8.0"), hops: fromOldest},
		{name: "a pin OLM goes past", installed: jumpstarter("0.8.0"), target: jumpstarter("0.8.1-rc.1"),
			hops: fromOldest, reason: upgradepath.ErrNoSuccessor,
			detail: "OLM goes from jumpstarter-operator.v0.8.0 to jumpstarter-operator.v0.8.1 (skipRange), past jumpstarter-operator.v0.8.1-rc.1"},
		{name: "a prerelease before its release", installed: jumpstarter("0.8.1-rc.1"), target: jumpstarter("0.8.1"),
			hops: []upgradepath.Hop{hop("0.8.1-rc.1", "0.8.1", upgradepath.ViaReplaces)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := upgradepath.Find(pkg, "alpha", tc.installed, tc.target)
			assertPath(t, got, err, tc.hops, tc.reason, tc.detail)
		})
	}
}

// openshift-fusion-access-operator's bundles carry olm.maxOpenShiftVersion 4.19, 4.20, 4.21,
// and minKubeVersion 1.32.0.
func TestFusionAccessMaxOpenShiftVersion(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "certified-v4.20/openshift-fusion-access-operator", "openshift-fusion-access-operator")
	got, err := upgradepath.Find(pkg, "", "openshift-fusion-access-operator.v1.0.0", "")
	require.NoError(t, err)
	var maxima []string
	for _, h := range got.Hops {
		maxima = append(maxima, fmt.Sprintf("%s %s %s", h.To, h.MaxOpenShiftVersion, h.MinKubeVersion))
	}
	assert.Equal(t, []string{
		"openshift-fusion-access-operator.v1.0.1 4.19 1.32.0",
		"openshift-fusion-access-operator.v1.1.0-1 4.20 1.32.0",
		"openshift-fusion-access-operator.v1.1.1-1 4.20 1.32.0",
		"openshift-fusion-access-operator.v1.2.0-3 4.21 1.32.0",
	}, maxima)
	allows, err := got.Hops[0].AllowsOpenShift("4.20.3")
	require.NoError(t, err)
	assert.False(t, allows, "v1.0.1 stops at 4.19")
	allows, err = got.Hops[3].AllowsOpenShift("4.20.3")
	require.NoError(t, err)
	assert.True(t, allows)
}
