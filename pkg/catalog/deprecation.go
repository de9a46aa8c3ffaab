package catalog

import (
	"errors"
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
	Schema string
	Name   string
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
	entries, err := listOfMaps(blob, "entries")
	if err != nil {
		return nil, fail(err)
	}
	out := make([]Deprecation, 0, len(entries))
	for i, e := range entries {
		d := Deprecation{Source: src}
		ref, err := optMap(e, "reference")
		if err == nil && ref == nil {
			err = errors.New(`field "reference" is missing`)
		}
		if err == nil {
			d.Reference.Schema, err = reqString(ref, "schema")
		}
		if err == nil {
			d.Reference.Name, err = optString(ref, "name")
		}
		if err == nil {
			d.Message, err = optString(e, "message")
		}
		if err == nil {
			switch d.Reference.Schema {
			case schemaPackage:
			case schemaChannel, schemaBundle:
				if d.Reference.Name == "" {
					err = fmt.Errorf("a %s reference needs a name", d.Reference.Schema)
				}
			default:
				err = fmt.Errorf("reference schema %q is not one of olm.package, olm.channel, olm.bundle", d.Reference.Schema)
			}
		}
		if err != nil {
			return nil, fail(fmt.Errorf("entry %d: %w", i, err))
		}
		out = append(out, d)
	}
	return out, nil
}
