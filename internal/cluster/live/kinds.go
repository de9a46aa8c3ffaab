package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/odlm-render/odlm-render/internal/cluster"
)

var _ cluster.KindLister = (*Reader)(nil)

// Kinds implements cluster.KindLister with discovery: for the core group and every group of
// /apis, its preferred version's resources that can be listed (not subresources), one kind
// each, sorted. A group-version whose discovery fails (an aggregated API that is down, a
// group RBAC hides) is left out, and the error then wraps cluster.ErrIncompleteKinds and
// names it; an unreachable server, or /api or /apis failing, is an error without kinds.
func (l *Reader) Kinds() ([]cluster.Kind, error) {
	if err := l.failed(); err != nil {
		return nil, err
	}
	gvs, err := l.preferredGroupVersions()
	if err != nil {
		return nil, err
	}
	var out []cluster.Kind
	var missed []string
	for _, gv := range gvs {
		resources, err := l.discover(gv)
		switch {
		case errors.Is(err, cluster.ErrNotServed): // gone since /apis was read
			continue
		case err != nil && l.failed() != nil:
			return nil, err
		case err != nil:
			missed = append(missed, gv.String())
			continue
		}
		out = append(out, listableKinds(gv, resources)...)
	}
	out = uniqueKinds(out)
	if len(missed) > 0 {
		return out, fmt.Errorf("live cluster %s: %w: the discovery of %s failed", l.conn.Server, cluster.ErrIncompleteKinds, strings.Join(missed, ", "))
	}
	return out, nil
}

// listableKinds are the kinds of a group-version's resources that have the list verb,
// subresources left out.
func listableKinds(gv schema.GroupVersion, resources []metav1.APIResource) []cluster.Kind {
	var out []cluster.Kind
	for _, r := range resources {
		if r.Kind == "" || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
			continue
		}
		out = append(out, cluster.Kind{APIVersion: gv.String(), Kind: r.Kind})
	}
	return out
}

// uniqueKinds sorts kinds and drops repeats.
func uniqueKinds(kinds []cluster.Kind) []cluster.Kind {
	cluster.SortKinds(kinds)
	return slices.Compact(kinds)
}

// preferredGroupVersions are v1 (the core group, when /api serves it) and the preferred
// version of every group /apis lists, in that order. Names that could not be a group or a
// version (a hostile server's) are left out.
func (l *Reader) preferredGroupVersions() ([]schema.GroupVersion, error) {
	var core metav1.APIVersions
	if err := l.getJSON("/api", &core); err != nil {
		return nil, err
	}
	var out []schema.GroupVersion
	if slices.Contains(core.Versions, "v1") {
		out = append(out, schema.GroupVersion{Version: "v1"})
	}
	var groups metav1.APIGroupList
	if err := l.getJSON("/apis", &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		preferred := g.PreferredVersion.Version
		if preferred == "" && len(g.Versions) > 0 {
			preferred = g.Versions[0].Version
		}
		if validGroup.MatchString(g.Name) && validVersion.MatchString(preferred) {
			out = append(out, schema.GroupVersion{Group: g.Name, Version: preferred})
		}
	}
	return out, nil
}

var (
	validGroup   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	validVersion = regexp.MustCompile(`^[a-z0-9]{1,63}$`)
)

// getJSON GETs a discovery document at path and decodes it into v.
func (l *Reader) getJSON(path string, v any) error {
	body, err := l.conn.get("discovery "+path, path)
	if err != nil {
		return l.describe(err, "", "discovery "+path)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("live cluster %s: discovery %s: the response is not a discovery document", l.conn.Server, path)
	}
	return nil
}
