package catalog

import (
	"maps"
	"slices"
	"strings"
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
