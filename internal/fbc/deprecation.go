package fbc

import (
	"fmt"
)

// Deprecation is one entry of a package's olm.deprecations blob.
type Deprecation struct {
	Reference DeprecationReference
	Message   string
	Source    Source
}

// DeprecationReference names what is deprecated: the package itself
// (Schema olm.package, no Name), a channel or a bundle.
type DeprecationReference struct {
	Schema string `json:"schema" catalog:"required"`
	Name   string `json:"name"`
}

// DeprecationFor returns the deprecation of the package (schema
// "olm.package", name ignored), of a channel ("olm.channel") or of a bundle
// ("olm.bundle").
func (p *Package) DeprecationFor(schema, name string) (Deprecation, bool) {
	for _, d := range p.Deprecations {
		if d.Reference.Schema == schema && (schema == schemaPackage || d.Reference.Name == name) {
			return d, true
		}
	}
	return Deprecation{}, false
}

func decodeDeprecations(src Source, pkg string, blob map[string]any) ([]Deprecation, error) {
	fail := func(err error) error {
		return &Error{Source: src, Package: pkg, Err: fmt.Errorf("olm.deprecations: %w", err)}
	}
	var r deprecationsRecord
	if err := decodeRecord(blob, &r); err != nil {
		return nil, fail(err)
	}
	out := make([]Deprecation, 0, len(r.Entries))
	for i, e := range r.Entries {
		if err := e.validate(); err != nil {
			return nil, fail(fmt.Errorf("%s: %w", e.label(i), err))
		}
		out = append(out, Deprecation{Reference: *e.Reference, Message: e.Message, Source: src})
	}
	return out, nil
}
