package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Channel is an upgrade graph of bundles.
type Channel struct {
	Name    string
	Package string
	Entries []ChannelEntry
	Source  Source
}

// ChannelEntry is one bundle of a channel and its upgrade edges.
type ChannelEntry struct {
	Name     string
	Replaces string
	Skips    []string
	// SkipRange is a semver range of bundles this one may replace. It is not
	// an edge of the graph: OLM uses it at install time only, so it does not
	// decide the head.
	SkipRange string
}

// Head returns the channel head: the unique entry that no other entry
// replaces or skips. It wraps ErrNoChannelHead or ErrMultipleChannelHeads.
// It is a single pass over the entries, so even a graph with cycles cannot
// make it loop.
func (ch *Channel) Head() (string, error) {
	incoming := make(map[string]bool, len(ch.Entries))
	for _, e := range ch.Entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var heads []string
	for _, e := range ch.Entries {
		if !incoming[e.Name] && !slices.Contains(heads, e.Name) {
			heads = append(heads, e.Name)
		}
	}
	switch len(heads) {
	case 1:
		return heads[0], nil
	case 0:
		return "", &Error{Source: ch.Source, Package: ch.Package, Channel: ch.Name, Err: ErrNoChannelHead}
	}
	slices.Sort(heads)
	return "", &Error{Source: ch.Source, Package: ch.Package, Channel: ch.Name,
		Err: fmt.Errorf("%w: %s", ErrMultipleChannelHeads, strings.Join(heads, ", "))}
}

// decodeChannel reads an olm.channel blob whose package is already known.
func decodeChannel(src Source, pkg string, blob map[string]any) (*Channel, error) {
	name, err := reqString(blob, "name")
	if err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf("olm.channel: %w", err)}
	}
	fail := func(err error) error { return &Error{Source: src, Package: pkg, Channel: name, Err: err} }
	raw, err := listOfMaps(blob, "entries")
	if err != nil {
		return nil, fail(err)
	}
	ch := &Channel{Name: name, Package: pkg, Source: src, Entries: make([]ChannelEntry, 0, len(raw))}
	seen := make(map[string]int, len(raw))
	for i, m := range raw {
		var e ChannelEntry
		if e.Name, err = reqString(m, "name"); err != nil {
			return nil, fail(fmt.Errorf("entry %d: %w", i, err))
		}
		if j, dup := seen[e.Name]; dup {
			return nil, fail(fmt.Errorf("entries %d and %d are both %q", j, i, e.Name))
		}
		seen[e.Name] = i
		if e.Replaces, err = optString(m, "replaces"); err != nil {
			return nil, fail(fmt.Errorf("entry %q: %w", e.Name, err))
		}
		if e.Skips, err = optStringList(m, "skips"); err != nil {
			return nil, fail(fmt.Errorf("entry %q: %w", e.Name, err))
		}
		if e.SkipRange, err = optString(m, "skipRange"); err != nil {
			return nil, fail(fmt.Errorf("entry %q: %w", e.Name, err))
		}
		ch.Entries = append(ch.Entries, e)
	}
	return ch, nil
}
