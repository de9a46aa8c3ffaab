package fbc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/constraints"
)

// Requirement is one thing a bundle needs OLM v0 to install beside it in its namespace: an
// olm.package.required, olm.gvk.required or olm.constraint property, as a test on bundles
// (OLM's resolver turns each into a predicate over the catalogs' bundles and installs the
// first bundle that passes: Catalog.Candidate).
type Requirement struct {
	// Property is the property type it comes from.
	Property string
	// What says what it requires, for messages ("package db-operator >=1.0.0").
	What string
	// Package is the required package of an olm.package.required ("" for the others).
	Package string
	// FailureMessage is the constraint's own failureMessage, if it has one.
	FailureMessage string
	// Match reports whether a bundle satisfies it.
	Match func(*Bundle) bool
}

// Requirements are the bundle's requirements, in the order of its properties: its
// olm.package.required, then olm.gvk.required, then olm.constraint properties. An
// olm.constraint that OLM cannot read (operator-framework/api's constraints.Parse, or a CEL
// rule that does not compile) is an error naming it: OLM's resolution fails on it too.
func (b *Bundle) Requirements() ([]Requirement, error) {
	var out []Requirement
	for _, q := range b.RequiredPackages {
		out = append(out, Requirement{Property: propPackageRequired, Package: q.PackageName,
			What: strings.TrimSpace("package " + q.PackageName + " " + q.VersionRange), Match: func(c *Bundle) bool { return c.Satisfies(q) }})
	}
	for _, g := range b.RequiredGVKs {
		out = append(out, Requirement{Property: propGVKRequired, What: g.String(), Match: func(c *Bundle) bool { return c.Provides(g) }})
	}
	env := constraints.NewCelEnvironment()
	for i, p := range b.Properties {
		if p.Type != constraints.OLMConstraintType {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // the rule is quoted in messages as written
		if err := enc.Encode(p.Value); err != nil {
			return nil, fmt.Errorf("bundle %s: properties[%d] olm.constraint: %w", b.Name, i, err)
		}
		raw := bytes.TrimSpace(buf.Bytes())
		c, err := constraints.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: olm.constraint %s: OLM cannot read it: %w", b.Name, raw, err)
		}
		match, what, err := constraintMatch(env, c)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: olm.constraint %s: %w", b.Name, raw, err)
		}
		out = append(out, Requirement{Property: constraints.OLMConstraintType, What: what, FailureMessage: c.FailureMessage, Match: match})
	}
	return out, nil
}

// constraintMatch is OLM's predicate for a constraint (its resolver's convertConstraints: a
// gvk, a package range, all/any/not of others, or a CEL rule over the bundle's properties)
// and a description of it.
func constraintMatch(env *constraints.CelEnvironment, c constraints.Constraint) (func(*Bundle) bool, string, error) {
	// compound is all, any or not of list: ok says, from how many of them a bundle matches
	// out of how many there are, whether it passes
	compound := func(op string, list []constraints.Constraint, ok func(matched, of int) bool) (func(*Bundle) bool, string, error) {
		var preds []func(*Bundle) bool
		var whats []string
		for _, sub := range list {
			m, w, err := constraintMatch(env, sub)
			if err != nil {
				return nil, "", err
			}
			preds, whats = append(preds, m), append(whats, w)
		}
		match := func(b *Bundle) bool {
			n := 0
			for _, p := range preds {
				if p(b) {
					n++
				}
			}
			return ok(n, len(preds))
		}
		return match, op + "(" + strings.Join(whats, ", ") + ")", nil
	}
	switch {
	case c.GVK != nil:
		g := GVK{Group: c.GVK.Group, Version: c.GVK.Version, Kind: c.GVK.Kind}
		return func(b *Bundle) bool { return b.Provides(g) }, g.String(), nil
	case c.Package != nil:
		q := PackageRequirement{PackageName: c.Package.PackageName, VersionRange: c.Package.VersionRange}
		return func(b *Bundle) bool { return b.Satisfies(q) }, strings.TrimSpace("package " + q.PackageName + " " + q.VersionRange), nil
	case c.All != nil:
		return compound("all", c.All.Constraints, func(n, of int) bool { return n == of })
	case c.Any != nil:
		return compound("any", c.Any.Constraints, func(n, _ int) bool { return n > 0 })
	case c.Not != nil:
		// OLM's Not is "none of them" (cache.Not)
		return compound("not", c.Not.Constraints, func(n, _ int) bool { return n == 0 })
	case c.Cel != nil:
		prog, err := env.Validate(c.Cel.Rule)
		if err != nil {
			return nil, "", fmt.Errorf("its CEL rule %q does not compile: %w", c.Cel.Rule, err)
		}
		return func(b *Bundle) bool {
			ok, err := prog.Evaluate(map[string]any{"properties": b.celProperties()})
			return err == nil && ok // OLM counts an evaluation error as no match
		}, fmt.Sprintf("cel %q", c.Cel.Rule), nil
	}
	return nil, "", fmt.Errorf("the constraint is empty")
}

// celProperties are the bundle's properties as OLM's CEL predicate reads them: a list of
// {type, value}, the olm.package and olm.gvk ones included.
func (b *Bundle) celProperties() []any {
	out := []any{map[string]any{"type": propPackage, "value": map[string]any{"packageName": b.Package, "version": b.Version}}}
	for _, g := range b.ProvidedGVKs {
		out = append(out, map[string]any{"type": propGVK, "value": map[string]any{"group": g.Group, "version": g.Version, "kind": g.Kind}})
	}
	for _, q := range b.RequiredPackages {
		out = append(out, map[string]any{"type": propPackageRequired, "value": map[string]any{"packageName": q.PackageName, "versionRange": q.VersionRange}})
	}
	for _, g := range b.RequiredGVKs {
		out = append(out, map[string]any{"type": propGVKRequired, "value": map[string]any{"group": g.Group, "version": g.Version, "kind": g.Kind}})
	}
	for _, p := range b.Properties {
		out = append(out, map[string]any{"type": p.Type, "value": p.Value})
	}
	return out
}

// Provides says whether the bundle provides the API g (an olm.gvk property).
func (b *Bundle) Provides(g GVK) bool { return slices.Contains(b.ProvidedGVKs, g) }

// Candidate is the bundle OLM v0 picks from this catalog for a requirement: the first that
// matches, looking in the default channels of every package first, by package name, then in
// the other channels, by package and channel name, each from its head down, never a
// deprecated bundle. false when none matches.
func (c *Catalog) Candidate(match func(*Bundle) bool) (Candidate, bool) {
	var pkgs []*Package
	for _, name := range c.PackageNames() {
		p, _ := c.Package(name)
		pkgs = append(pkgs, p)
	}
	return firstIn(pkgs, match)
}

// String is "group/version Kind" ("version Kind" for the core group).
func (g GVK) String() string {
	if g.Group == "" {
		return g.Version + " " + g.Kind
	}
	return g.Group + "/" + g.Version + " " + g.Kind
}
