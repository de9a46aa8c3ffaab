package upgradepath

import (
	"errors"
	"fmt"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Via names the edge of a hop: why OLM sees To as an update of From.
type Via string

// The edges OLM v0 follows. When an entry has several edges from the same bundle, the hop
// names the first of replaces, skips, skipRange.
const (
	ViaReplaces  Via = "replaces"
	ViaSkips     Via = "skips"
	ViaSkipRange Via = "skipRange"
)

// Hop is one update OLM makes: it replaces the CSV From by the bundle To.
type Hop struct {
	From string
	To   string
	Via  Via
	// Version is To's version (its olm.package property), "" when the catalog has no bundle
	// for To.
	Version string
	// Deprecation is the package's deprecation of the bundle To, nil when it has none.
	Deprecation *catalog.Deprecation
	// MaxOpenShiftVersion is To's olm.maxOpenShiftVersion property as the catalog writes it,
	// "" when it has none; several are joined with ", " (OLM rejects a CSV with more than
	// one). AllowsOpenShift reads it as OLM does.
	MaxOpenShiftVersion string
	// MinKubeVersion is To's CSV spec.minKubeVersion as the catalog writes it, "" when none
	// (internal/kubeversion reads it as OLM does).
	MinKubeVersion string
}

// Path is the way OLM goes from Installed to Target in a channel. Hops is empty when
// Installed is Target.
type Path struct {
	Package   string
	Channel   string
	Installed string
	Target    string
	Hops      []Hop
	// Loop are the updates OLM goes on making once at the channel head, until one repeats:
	// an older entry whose skipRange holds the head's version takes the operator back, and
	// the head replaces it again, one InstallPlan after the other for ever (OLM does not
	// compare versions). Nil when OLM stays at the head, or Target is not the head.
	Loop []Hop
}

// Versions are the versions of the bundles the path updates to, in order: with OLM v1, which
// updates only to a direct successor, the versions to name one after the other.
func (p Path) Versions() []string {
	var out []string
	for _, h := range p.Hops {
		out = append(out, h.Version)
	}
	return out
}

// Installed is the CSV a Subscription has installed, as the cluster has it: its name, and
// its spec.version ("" to take the catalog bundle's). OLM reads the version from the
// cluster's CSV, so a CSV the catalog no longer has is still reached by a skipRange.
type Installed struct {
	CSV     string
	Version string
}

// Why OLM does not reach the target. A *NoPathError wraps one of them.
var (
	// ErrNotInChannel: the installed CSV is not an entry of the channel, and no entry
	// replaces it, skips it or has a skipRange containing its version.
	ErrNotInChannel = errors.New("the installed CSV is not in the channel")
	// ErrTargetBehind: the target is older than the installed version (a pin behind); OLM
	// does not go back.
	ErrTargetBehind = errors.New("the target is behind the installed version")
	// ErrNoSuccessor: the updates OLM picks from the installed CSV do not pass through the
	// target (they stop before it, or go past it).
	ErrNoSuccessor = errors.New("no successor leads to the target")
	// ErrTargetNotInChannel: the target is not an entry of the channel.
	ErrTargetNotInChannel = errors.New("the target is not in the channel")
)

// NoPathError says why OLM does not reach the target, and what it does instead.
type NoPathError struct {
	Package   string
	Channel   string
	Installed string
	Target    string
	// Reason is one of ErrNotInChannel, ErrTargetBehind, ErrNoSuccessor and
	// ErrTargetNotInChannel.
	Reason error
	// Detail says more, in words (where OLM stops, which entry it goes past the target to).
	Detail string
	// Hops are the updates OLM makes anyway, from the installed CSV until it stops.
	Hops []Hop
}

func (e *NoPathError) Error() string {
	msg := fmt.Sprintf("package %s, channel %s: no upgrade path from %s to %s: %v", e.Package, e.Channel, e.Installed, e.Target, e.Reason)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Unwrap returns the Reason, for errors.Is.
func (e *NoPathError) Unwrap() error {
	return e.Reason
}

// Find returns the path OLM v0 takes in channel (the package's default channel when "") from
// the installed CSV to target (the channel head when ""). When OLM does not reach the target,
// the error is a *NoPathError; other errors are about the catalog (no such channel, no single
// head, a cycle in the replaces chain: OLM cannot resolve the channel either) and name the
// package and the channel.
func Find(pkg *catalog.Package, channel, installed, target string) (Path, error) {
	return FindFrom(pkg, channel, Installed{CSV: installed}, target)
}

// FindFrom is Find from the installed CSV as the cluster has it (its version known even when
// the catalog no longer has the bundle).
func FindFrom(pkg *catalog.Package, channel string, from Installed, target string) (Path, error) {
	installed := from.CSV
	if pkg == nil {
		return Path{}, errors.New("upgradepath: no package")
	}
	g, err := newGraph(pkg, pkg.ChannelOrDefault(channel))
	if err != nil {
		return Path{}, err
	}
	g.installed = from
	if target == "" {
		target = g.head()
	}
	p := Path{Package: pkg.Name, Channel: g.ch.Name, Installed: installed, Target: target}
	if !g.isEntry(target) {
		return Path{}, p.noPath(ErrTargetNotInChannel, "", nil)
	}
	hops, detail := g.walk(installed, target)
	if installed == target || (len(hops) > 0 && hops[len(hops)-1].To == target) {
		p.Hops = hops
		if target == g.head() {
			visited := []string{installed}
			for _, h := range hops {
				visited = append(visited, h.To)
			}
			p.Loop = g.beyond(target, visited)
		}
		return p, nil
	}
	why, reason := g.classify(installed, target, hops)
	if why == "" {
		why = detail
	}
	return Path{}, p.noPath(reason, why, hops)
}

// noPath is the error for a path that does not reach p.Target.
func (p Path) noPath(reason error, detail string, hops []Hop) error {
	return &NoPathError{Package: p.Package, Channel: p.Channel, Installed: p.Installed, Target: p.Target,
		Reason: reason, Detail: detail, Hops: hops}
}
