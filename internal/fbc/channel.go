package fbc

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
	Name     string   `json:"name" catalog:"required"`
	Replaces string   `json:"replaces"`
	Skips    []string `json:"skips" snapshot:"flow"`
	// SkipRange is a semver range of bundles this one may replace. It is not
	// an edge of the graph: OLM uses it at install time only, so it does not
	// decide the head.
	SkipRange string `json:"skipRange"`
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
	var r channelRecord
	err := decodeRecord(blob, &r)
	if r.Name == "" && err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf("olm.channel: %w", err)}
	}
	if err == nil {
		err = r.validate()
	}
	if err != nil {
		return nil, &Error{Source: src, Package: pkg, Channel: r.Name, Err: err}
	}
	if r.Entries == nil {
		r.Entries = []ChannelEntry{}
	}
	return &Channel{Name: r.Name, Package: pkg, Source: src, Entries: r.Entries}, nil
}

// Order returns the channel as OLM v0's resolver orders it (sortChannel): the entries from
// the head down the replaces chain, leaving out those another entry of the channel skips
// (never an update or a dependency candidate). It fails, as OLM does, on a channel without a
// single head or with a cycle in its replaces chain.
func (ch *Channel) Order() ([]ChannelEntry, error) {
	head, err := ch.Head()
	if err != nil {
		return nil, err
	}
	byName := map[string]ChannelEntry{}
	skipped := map[string]bool{}
	for _, e := range ch.Entries {
		if _, dup := byName[e.Name]; !dup {
			byName[e.Name] = e
		}
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	var order []ChannelEntry
	seen := map[string]bool{}
	for cur, ok := byName[head]; ok; cur, ok = byName[cur.Replaces] {
		if seen[cur.Name] {
			return nil, &Error{Source: ch.Source, Package: ch.Package, Channel: ch.Name,
				Err: fmt.Errorf("a cycle in the replaces chain from the head %s reaches %s again", head, cur.Name)}
		}
		seen[cur.Name] = true
		if !skipped[cur.Name] {
			order = append(order, cur)
		}
	}
	return order, nil
}
