package catalog

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Bundle is one installable version of an operator.
type Bundle struct {
	Name    string
	Package string
	// Version is the version of the olm.package property.
	Version string
	Image   string
	Source  Source
	// CSVName is the ClusterServiceVersion's metadata.name: from the CSV
	// object in old-shape bundles, else the bundle name (the convention the
	// new rendering relies on, as olm.csv.metadata has no name).
	CSVName          string
	DisplayName      string
	InstallModes     []InstallMode
	ProvidedGVKs     []GVK
	RequiredGVKs     []GVK
	RequiredPackages []PackageRequirement
	// RelatedImages are the images the bundle deploys; kept only with
	// LoadOptions.RelatedImages (rendering does not need them).
	RelatedImages []RelatedImage
	// SkipRange comes from the olm.skipRange annotation.
	SkipRange string
	// Annotations are OLM's CSV annotations (from olm.csv.metadata, or from
	// the CSV among the olm.bundle.object properties): alm-examples (as
	// compact JSON text; Examples parses it on demand), olm.*,
	// operatorframework.io/* and operators.operatorframework.io/* (such as
	// olm.skipRange or operatorframework.io/suggested-namespace). Those of
	// the catalog UI (capabilities, categories, description, createdAt…) are
	// not kept: see keptAnnotation.
	Annotations map[string]string
	// Properties holds the properties not interpreted above (for example
	// olm.maxOpenShiftVersion), values as decoded. The bulky
	// olm.bundle.object and olm.csv.metadata are not kept.
	Properties []Property
	// Contents are the CRDs and install strategy the bundle's manifests carry: from its
	// olm.bundle.object properties, a snapshot, or its pulled image. Nil when unknown, and
	// for every bundle that heads no channel (a loaded catalog keeps the heads' only: they are
	// what OLM installs once converged).
	Contents *Contents
}

// InstallMode is one entry of a CSV's spec.installModes: OLM's type (its Type is one of
// OwnNamespace, SingleNamespace, MultiNamespace and AllNamespaces).
type InstallMode = v1alpha1.InstallMode

// GVK is an API group, version and kind.
type GVK struct {
	Group, Version, Kind string
}

// PackageRequirement is an olm.package.required property.
type PackageRequirement struct {
	PackageName, VersionRange string
}

// RelatedImage is an entry of a bundle's relatedImages.
type RelatedImage struct {
	Name, Image string
}

// Property is a bundle property kept as decoded.
type Property struct {
	Type  string
	Value any
}

// Property types a bundle may carry.
const (
	propPackage         = "olm.package"
	propGVK             = "olm.gvk"
	propGVKRequired     = "olm.gvk.required"
	propPackageRequired = "olm.package.required"
	propBundleObject    = "olm.bundle.object"
	propCSVMetadata     = "olm.csv.metadata"
)

// decodeBundle reads an olm.bundle blob whose package is already known.
func decodeBundle(src Source, pkg string, blob map[string]any, relatedImages bool) (*Bundle, error) {
	name, err := reqString(blob, "name")
	if err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf("olm.bundle: %w", err)}
	}
	fail := func(format string, args ...any) error {
		return &Error{Source: src, Package: pkg, Bundle: name, Err: fmt.Errorf(format, args...)}
	}
	b := &Bundle{Name: name, Package: pkg, Source: src, CSVName: name}
	if b.Image, err = optString(blob, "image"); err != nil {
		return nil, fail("%w", err)
	}
	var imgs []map[string]any
	if relatedImages {
		if imgs, err = listOfMaps(blob, "relatedImages"); err != nil {
			return nil, fail("%w", err)
		}
	}
	for i, m := range imgs {
		var ri RelatedImage
		if ri.Name, err = optString(m, "name"); err == nil {
			ri.Image, err = optString(m, "image")
		}
		if err != nil {
			return nil, fail("relatedImages element %d: %w", i, err)
		}
		b.RelatedImages = append(b.RelatedImages, ri)
	}
	props, err := listOfMaps(blob, "properties")
	if err != nil {
		return nil, fail("%w", err)
	}
	var (
		sawPackage, sawMetadata bool
		objects                 *contentsBuilder
	)
	for i, p := range props {
		typ, err := reqString(p, "type")
		if err != nil {
			return nil, fail("property %d: %w", i, err)
		}
		value := p["value"]
		perr := func(err error) error { return fail("property %d (%s): %w", i, typ, err) }
		switch typ {
		case propPackage:
			if sawPackage {
				return nil, perr(errors.New("a bundle has one olm.package property, found a second"))
			}
			sawPackage = true
			m, err := valueMap(value)
			if err != nil {
				return nil, perr(err)
			}
			pn, err := reqString(m, "packageName")
			if err != nil {
				return nil, perr(err)
			}
			if pn != pkg {
				return nil, perr(fmt.Errorf("packageName %q differs from the bundle's package", pn))
			}
			if b.Version, err = optString(m, "version"); err != nil {
				return nil, perr(err)
			}
		case propGVK, propGVKRequired:
			g, err := decodeGVK(value)
			if err != nil {
				return nil, perr(err)
			}
			if typ == propGVK {
				b.ProvidedGVKs = append(b.ProvidedGVKs, g)
			} else {
				b.RequiredGVKs = append(b.RequiredGVKs, g)
			}
		case propPackageRequired:
			m, err := valueMap(value)
			if err != nil {
				return nil, perr(err)
			}
			var r PackageRequirement
			if r.PackageName, err = reqString(m, "packageName"); err == nil {
				r.VersionRange, err = optString(m, "versionRange")
			}
			if err != nil {
				return nil, perr(err)
			}
			b.RequiredPackages = append(b.RequiredPackages, r)
		case propCSVMetadata:
			if sawMetadata {
				return nil, perr(errors.New("a bundle has one olm.csv.metadata property, found a second"))
			}
			sawMetadata = true
			if err := b.readCSVMetadata(value); err != nil {
				return nil, perr(err)
			}
		case propBundleObject:
			raw, err := decodeBundleObject(value)
			if err == nil {
				if objects == nil {
					objects = &contentsBuilder{pack: true}
				}
				err = objects.add(raw)
			}
			if err != nil {
				return nil, perr(err)
			}
		default:
			b.Properties = append(b.Properties, Property{Type: typ, Value: value})
		}
	}
	var csv *csvObject
	if objects != nil {
		csv = objects.csv
		b.Contents = objects.contents()
	}
	if csv != nil {
		// Old shape: the CSV object is the only source of metadata, unless
		// the bundle also has olm.csv.metadata, which then wins (it is what
		// the newer tooling reads) for everything but the name.
		if csv.Metadata.Name != "" {
			b.CSVName = csv.Metadata.Name
		}
		if !sawMetadata {
			for k, v := range csv.Metadata.Annotations {
				if keptAnnotation(k) {
					if b.Annotations == nil {
						b.Annotations = map[string]string{}
					}
					b.Annotations[k] = v
				}
			}
			b.DisplayName = csv.Spec.DisplayName
			b.InstallModes = csv.Spec.InstallModes
		}
	}
	b.SkipRange = b.Annotations["olm.skipRange"]
	if text, ok := b.Annotations[almExamples]; ok {
		// Real alm-examples are indented JSON: half of it is blanks, and
		// it is most of what a loaded catalog holds.
		b.Annotations[almExamples] = compactJSON(text)
	}
	return b, nil
}

// keptAnnotation tells the CSV annotations a Bundle keeps: what the
// renderer and a CatalogSnapshot read, not the catalog UI's prose.
func keptAnnotation(k string) bool {
	return k == almExamples || k == "olm.skipRange" || snapshotAnnotation(k)
}

// compactJSON drops the insignificant blanks of JSON text, as json.Compact
// does, but faster (it is run on every bundle's alm-examples): the blanks
// go first, then the shorter text is validated. Invalid JSON is given back
// unchanged, so that Examples reports the error where the text has it.
func compactJSON(text string) string {
	var out []byte
	word := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
	}
	var prev byte // the last byte kept outside strings
	skipped := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if out == nil {
				out = make([]byte, 0, len(text))
				out = append(out, text[:i]...)
			}
			skipped = true
			continue
		case c == '"':
			// copy the string up to its closing quote
			j := i + 1
			for j < len(text) {
				k := strings.IndexAny(text[j:], "\"\\")
				if k < 0 {
					return text // not closed
				}
				j += k
				if text[j] == '"' {
					break
				}
				j += 2 // an escape
			}
			if j >= len(text) {
				return text
			}
			if out != nil {
				out = append(out, text[i:j+1]...)
			}
			i, prev, skipped = j, '"', false
			continue
		case word(c):
			if skipped && word(prev) {
				return text // "1 2" must not become "12"
			}
		case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':':
		default:
			return text
		}
		if out != nil {
			out = append(out, c)
		}
		prev, skipped = c, false
	}
	if out == nil {
		return text
	}
	if !json.Valid(out) {
		return text // Examples reports the error where the text has it
	}
	return string(out)
}

func valueMap(v any) (map[string]any, error) {
	m, ok := asMap(v)
	if !ok {
		return nil, fmt.Errorf("value: expected a mapping, got %s", manifest.Describe(v))
	}
	return m, nil
}

func decodeGVK(v any) (GVK, error) {
	m, err := valueMap(v)
	if err != nil {
		return GVK{}, err
	}
	var g GVK
	if g.Group, err = optString(m, "group"); err != nil { // "" is the core group
		return GVK{}, err
	}
	if g.Version, err = reqString(m, "version"); err != nil {
		return GVK{}, err
	}
	if g.Kind, err = reqString(m, "kind"); err != nil {
		return GVK{}, err
	}
	return g, nil
}

// readCSVMetadata reads the olm.csv.metadata property (new rendering).
func (b *Bundle) readCSVMetadata(v any) error {
	m, err := valueMap(v)
	if err != nil {
		return err
	}
	ann, err := optMap(m, "annotations")
	if err != nil {
		return err
	}
	for k, v := range ann {
		s, err := scalarString(v, fmt.Sprintf("annotation %q", k))
		if err != nil {
			return err
		}
		if keptAnnotation(k) {
			if b.Annotations == nil {
				b.Annotations = map[string]string{}
			}
			b.Annotations[k] = s
		}
	}
	if b.DisplayName, err = optString(m, "displayName"); err != nil {
		return err
	}
	modes, err := listOfMaps(m, "installModes")
	if err != nil {
		return err
	}
	for i, mm := range modes {
		var im InstallMode
		var typ string
		if typ, err = reqString(mm, "type"); err == nil {
			im.Type = v1alpha1.InstallModeType(typ)
			im.Supported, err = optBool(mm, "supported")
		}
		if err != nil {
			return fmt.Errorf("installModes element %d: %w", i, err)
		}
		b.InstallModes = append(b.InstallModes, im)
	}
	return nil
}

// csvObject is the part of a ClusterServiceVersion we read.
type csvObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		DisplayName  string        `json:"displayName"`
		InstallModes []InstallMode `json:"installModes"`
		csvInstall
	} `json:"spec"`
}

// decodeBundleObject decodes an olm.bundle.object property: base64 of a JSON manifest (the
// CSV, a CRD, a Service…).
func decodeBundleObject(v any) ([]byte, error) {
	m, err := valueMap(v)
	if err != nil {
		return nil, err
	}
	if _, ok := m["ref"]; ok && m["data"] == nil {
		return nil, errors.New("olm.bundle.object with a file ref is not supported: render the catalog with the objects inlined (data)")
	}
	data, err := reqString(m, "data")
	if err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("data: invalid base64: %w", err)
	}
	return raw, nil
}
