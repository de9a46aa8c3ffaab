package upgradepath

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// graph is one channel as OLM's resolver sees it: its entries in OLM's order of preference,
// and what it needs to test an edge (bundle versions, parsed skipRanges).
type graph struct {
	pkg *catalog.Package
	ch  *catalog.Channel
	// order is the channel as sortChannel orders it: the head, then down the replaces chain,
	// without the entries another entry skips. Only these are update candidates.
	order   []catalog.ChannelEntry
	entries map[string]bool
	ranges  map[string]semver.Range
	// installed is the installed CSV as the cluster has it: its name and spec.version, which
	// OLM reads from the CSV (so a CSV pruned from the catalog keeps its version).
	installed Installed
}

// newGraph reads a channel of pkg. Like OLM, it fails on a channel without a single head or
// with a cycle in its replaces chain.
func newGraph(pkg *catalog.Package, channel string) (*graph, error) {
	ch, ok := pkg.Channels[channel]
	if !ok {
		return nil, &catalog.Error{Source: pkg.Source, Package: pkg.Name, Channel: channel,
			Err: fmt.Errorf("channel not found (channels: %v)", pkg.ChannelNames())}
	}
	g := &graph{pkg: pkg, ch: ch, entries: map[string]bool{}, ranges: map[string]semver.Range{}}
	for _, e := range ch.Entries {
		g.entries[e.Name] = true
		if r, err := semver.ParseRange(e.SkipRange); e.SkipRange != "" && err == nil {
			g.ranges[e.Name] = r
		}
	}
	order, err := ch.Order()
	if err != nil {
		return nil, err
	}
	g.order = order
	return g, nil
}

// head is the first entry of the order (the channel head).
func (g *graph) head() string {
	if len(g.order) == 0 {
		return ""
	}
	return g.order[0].Name
}

func (g *graph) isEntry(name string) bool {
	return g.entries[name]
}

// version is the parsed version of a bundle of the package, as OLM parses a catalog
// bundle's (tolerantly); false when the package has no such bundle or its version does not
// parse.
func (g *graph) version(name string) (semver.Version, bool) {
	if name == g.installed.CSV && g.installed.Version != "" {
		v, err := semver.ParseTolerant(g.installed.Version)
		return v, err == nil
	}
	b, ok := g.pkg.Bundles[name]
	if !ok || b == nil {
		return semver.Version{}, false
	}
	v, err := semver.ParseTolerant(b.Version)
	return v, err == nil
}

// edge says whether OLM sees entry e as an update of the bundle from (whose version is v when
// known), and by which edge.
func (g *graph) edge(e catalog.ChannelEntry, from string, v semver.Version, hasVersion bool) (Via, bool) {
	switch {
	case e.Name == from:
		return "", false
	case e.Replaces == from:
		return ViaReplaces, true
	case slices.Contains(e.Skips, from):
		return ViaSkips, true
	}
	if r, ok := g.ranges[e.Name]; ok && hasVersion && r(v) {
		return ViaSkipRange, true
	}
	return "", false
}

// next is the update OLM picks for the bundle from: the candidate nearest the head. A bundle
// with the olm.deprecated property is never one (OLM's resolver prohibits it).
func (g *graph) next(from string) (catalog.ChannelEntry, Via, bool) {
	v, hasVersion := g.version(from)
	for _, e := range g.order {
		if g.deprecatedProperty(e.Name) {
			continue
		}
		if via, ok := g.edge(e, from, v, hasVersion); ok {
			return e, via, true
		}
	}
	return catalog.ChannelEntry{}, "", false
}

// deprecatedProperty says whether the bundle carries the olm.deprecated property.
func (g *graph) deprecatedProperty(name string) bool {
	b, ok := g.pkg.Bundles[name]
	return ok && b != nil && b.DeprecatedProperty()
}

// beyond makes OLM's updates from the channel head, which OLM takes as long as an entry has
// an edge from the installed CSV (an older entry whose skipRange holds the head's version
// moves it back), until one reaches a CSV the operator has had (visited: the installed CSV
// and the path's): the hops, nil when OLM stays at the head.
func (g *graph) beyond(head string, visited []string) []Hop {
	var hops []Hop
	seen := map[string]bool{head: true}
	for _, v := range visited {
		seen[v] = true
	}
	for cur := head; ; {
		e, via, ok := g.next(cur)
		if !ok {
			return hops
		}
		hops = append(hops, g.hop(cur, e.Name, via))
		if seen[e.Name] {
			return hops
		}
		seen[e.Name] = true
		cur = e.Name
	}
}

// walk makes OLM's updates from installed until it reaches target or finds no update. The
// detail says where and why it stopped when it did not reach target.
func (g *graph) walk(installed, target string) ([]Hop, string) {
	var hops []Hop
	seen := map[string]bool{installed: true}
	for cur := installed; cur != target; {
		e, via, ok := g.next(cur)
		if !ok {
			return hops, g.stopDetail(cur, target, hops)
		}
		hops = append(hops, g.hop(cur, e.Name, via))
		if seen[e.Name] {
			return hops, fmt.Sprintf("OLM comes back to %s: a cycle of updates", e.Name)
		}
		seen[e.Name] = true
		cur = e.Name
	}
	return hops, ""
}

// stopDetail says where a walk stopped short of target.
func (g *graph) stopDetail(at, target string, hops []Hop) string {
	if passed := g.passedOver(hops, target); passed != "" {
		return passed
	}
	if at == g.head() {
		return fmt.Sprintf("OLM stops at the channel head %s", at)
	}
	if deprecated := g.deprecatedSuccessors(at); len(deprecated) > 0 {
		return fmt.Sprintf("OLM stops at %s: the only entries with an edge from it, %s, carry the olm.deprecated property, which OLM never chooses", at, strings.Join(deprecated, ", "))
	}
	return fmt.Sprintf("OLM stops at %s: no entry of the channel replaces it, skips it or has a skipRange containing its version", at)
}

// deprecatedSuccessors are the entries with an edge from the bundle from that carry the
// olm.deprecated property, in the channel's order.
func (g *graph) deprecatedSuccessors(from string) []string {
	v, hasVersion := g.version(from)
	var out []string
	for _, e := range g.order {
		if _, ok := g.edge(e, from, v, hasVersion); ok && g.deprecatedProperty(e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// passedOver names the hop that goes past target, "" when none does: the first hop to an
// entry nearer the head than target, from one farther from it.
func (g *graph) passedOver(hops []Hop, target string) string {
	ti := g.position(target)
	if ti < 0 {
		if g.isSkipped(target) {
			return fmt.Sprintf("OLM never updates to %s: another entry of the channel skips it", target)
		}
		return ""
	}
	for _, h := range hops {
		if to := g.position(h.To); to >= 0 && to < ti {
			return fmt.Sprintf("OLM goes from %s to %s (%s), past %s", h.From, h.To, h.Via, target)
		}
	}
	return ""
}

// position is the index of an entry in the order (0 is the head), -1 when it is not there.
func (g *graph) position(name string) int {
	return slices.IndexFunc(g.order, func(e catalog.ChannelEntry) bool { return e.Name == name })
}

func (g *graph) isSkipped(name string) bool {
	return g.entries[name] && g.position(name) < 0 && slices.ContainsFunc(g.ch.Entries, func(e catalog.ChannelEntry) bool {
		return slices.Contains(e.Skips, name)
	})
}

// hop describes the update from → to, with what the catalog says of to.
func (g *graph) hop(from, to string, via Via) Hop {
	h := Hop{From: from, To: to, Via: via}
	if b, ok := g.pkg.Bundles[to]; ok && b != nil {
		h.Version = b.Version
		h.MaxOpenShiftVersion = maxOpenShiftText(b)
		h.MinKubeVersion = b.MinKubeVersion
	}
	if d, ok := g.pkg.DeprecationFor(schemaBundle, to); ok {
		h.Deprecation = &d
	}
	return h
}

// classify says why a walk from installed did not reach target, and says it in words when
// the walk's own detail (where it stopped) is not the point.
func (g *graph) classify(installed, target string, hops []Hop) (detail string, reason error) {
	if len(hops) == 0 && !g.isEntry(installed) {
		return fmt.Sprintf("no entry of channel %s replaces it, skips it or has a skipRange containing its version", g.ch.Name), ErrNotInChannel
	}
	if g.behind(installed, target) {
		return g.behindDetail(installed, target), ErrTargetBehind
	}
	return "", ErrNoSuccessor
}

// behind reports whether target is older than installed: by version when both are known,
// else by their places in the channel order.
func (g *graph) behind(installed, target string) bool {
	iv, iok := g.version(installed)
	tv, tok := g.version(target)
	if iok && tok {
		return tv.LT(iv)
	}
	ii, ti := g.position(installed), g.position(target)
	return ii >= 0 && ti > ii
}

func (g *graph) behindDetail(installed, target string) string {
	iv, iok := g.version(installed)
	tv, tok := g.version(target)
	if iok && tok {
		return fmt.Sprintf("%s is version %s, %s is %s: OLM does not go back", target, tv, installed, iv)
	}
	return fmt.Sprintf("%s is farther from the head than %s in the channel's replaces chain: OLM does not go back", target, installed)
}
