package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Set is the catalog data of a cluster as a render sees it: the content of CatalogSources.
// Named holds what `--catalog NAMESPACE/NAME=PATH` gives, the content of that one
// CatalogSource, keyed "namespace/name"; Plain is the content of every other CatalogSource
// (plain `--catalog PATH`s, merged into one catalog). Either may be empty.
type Set struct {
	Plain *Catalog
	Named map[string]*Catalog
}

// Empty reports a set without any catalog.
func (s Set) Empty() bool { return s.Plain == nil && len(s.Named) == 0 }

// Of is the content of CatalogSource namespace/name: its named catalog, else Plain (nil when
// there is neither).
func (s Set) Of(namespace, name string) *Catalog {
	if c, ok := s.Named[namespace+"/"+name]; ok {
		return c
	}
	return s.Plain
}

// OfKey is Of for a "namespace/name" key.
func (s Set) OfKey(key string) *Catalog {
	ns, name, _ := strings.Cut(key, "/")
	return s.Of(ns, name)
}

// NamedKeys are the keys of the named catalogs, sorted.
func (s Set) NamedKeys() []string { return slices.Sorted(maps.Keys(s.Named)) }

// Offering are the named catalogs whose content has package pkg, sorted by key.
func (s Set) Offering(pkg string) []string {
	var out []string
	for _, k := range s.NamedKeys() {
		if _, ok := s.Named[k].Package(pkg); ok {
			out = append(out, k)
		}
	}
	return out
}

// Package finds pkg for a CatalogSource that may be unknown: that source's catalog when
// namespace and name are set; else Plain, else the first named catalog that has it.
func (s Set) Package(namespace, name, pkg string) (*Package, bool) {
	if namespace != "" && name != "" {
		c := s.Of(namespace, name)
		if c == nil {
			return nil, false
		}
		return c.Package(pkg)
	}
	if s.Plain != nil {
		if p, ok := s.Plain.Package(pkg); ok {
			return p, true
		}
	}
	for _, k := range s.NamedKeys() {
		if p, ok := s.Named[k].Package(pkg); ok {
			return p, true
		}
	}
	return nil, false
}

// ParseSourceName reads the NAME of `--catalog NAME=PATH`: "namespace/name", or "name" in
// globalNamespace. The name must be a Kubernetes object name (DNS-1123 subdomain) and the
// namespace written a namespace name; ok is false when text is not such a name, so that a
// path holding "=" stays a path (whatever globalNamespace is: the split does not depend on it).
func ParseSourceName(text, globalNamespace string) (key string, ok bool) {
	ns, name, qualified := strings.Cut(text, "/")
	if !qualified {
		ns, name = "", text
	}
	if qualified && len(validation.IsDNS1123Label(ns)) > 0 {
		return "", false
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "", false
	}
	if !qualified {
		ns = globalNamespace
	}
	return ns + "/" + name, true
}

// SplitNamedPath splits a `--catalog` value: "NAME=PATH" gives the CatalogSource key
// (ParseSourceName) and PATH; anything else is a plain path (key ""). An empty PATH after a
// NAME is an error.
func SplitNamedPath(value, globalNamespace string) (key, path string, err error) {
	before, after, found := strings.Cut(value, "=")
	if !found {
		return "", value, nil
	}
	key, ok := ParseSourceName(before, globalNamespace)
	if !ok {
		return "", value, nil
	}
	if after == "" {
		return "", "", fmt.Errorf("%q: no PATH after CatalogSource %s=", value, before)
	}
	return key, after, nil
}
