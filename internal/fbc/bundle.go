package fbc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	// RelatedImages are the images the bundle deploys, in the catalog's order, images as
	// given (digests kept); kept only with LoadOptions.RelatedImages (rendering does not
	// need them). Nil when the catalog lists none.
	RelatedImages []RelatedImage
	// RelatedImagesKnown tells "none listed" from "not kept": it is true when the load kept
	// related images and the bundle's source records them: every olm.bundle blob (one
	// without relatedImages lists none), and a CatalogSnapshot bundle written since snapshots
	// keep them (its relatedImages field, [] for none). It is false without
	// LoadOptions.RelatedImages, and for a snapshot written before they were kept (extract
	// it again to have them).
	RelatedImagesKnown bool
	// SkipRange comes from the olm.skipRange annotation.
	SkipRange string
	// MinKubeVersion is the CSV's spec.minKubeVersion (from olm.csv.metadata, or from the
	// CSV among the olm.bundle.object properties), as written: OLM does not install the CSV
	// on a cluster whose Kubernetes version is below it. "" when the bundle sets none; a
	// value that is not a string is kept as its JSON text (its reader reports it).
	MinKubeVersion string
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
	Group   string `json:"group"` // "" is the core group
	Version string `json:"version" catalog:"required"`
	Kind    string `json:"kind" catalog:"required"`
}

// PackageRequirement is an olm.package.required property.
type PackageRequirement struct {
	PackageName  string `json:"packageName" catalog:"required"`
	VersionRange string `json:"versionRange"`
}

// RelatedImage is an entry of a bundle's relatedImages: OLM's type (a CSV's
// spec.relatedImages, which FBC copies), its image as the catalog gives it, by tag or digest.
type RelatedImage = v1alpha1.RelatedImage

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
	var r bundleRecord
	err := decodeRecord(blob, &r)
	if r.Name == "" && err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf("olm.bundle: %w", err)}
	}
	fail := func(err error) error { return &Error{Source: src, Package: pkg, Bundle: r.Name, Err: err} }
	if err != nil {
		return nil, fail(err)
	}
	bb := bundleBuild{b: &Bundle{Name: r.Name, Package: pkg, Source: src, CSVName: r.Name, Image: r.Image}}
	if relatedImages {
		if err := bb.relatedImages(r.RelatedImages); err != nil {
			return nil, fail(err)
		}
	}
	for i, p := range r.Properties {
		if err := bb.property(p); err != nil {
			return nil, fail(fmt.Errorf("property %d (%s): %w", i, p.Type, err))
		}
	}
	b, err := bb.finish()
	if err != nil {
		return nil, fail(err)
	}
	return b, nil
}

// bundleBuild gathers a Bundle from its properties.
type bundleBuild struct {
	b                       *Bundle
	sawPackage, sawMetadata bool
	objects                 *contentsBuilder
}

// relatedImages reads an olm.bundle's relatedImages (v: absent or null when it lists none).
func (bb *bundleBuild) relatedImages(v any) error {
	bb.b.RelatedImagesKnown = true
	if v == nil {
		return nil
	}
	if err := decodeField(v, reflect.ValueOf(&bb.b.RelatedImages).Elem(), "relatedImages"); err != nil {
		return err
	}
	if len(bb.b.RelatedImages) == 0 {
		bb.b.RelatedImages = nil // relatedImages: [] lists none, as an absent field does
	}
	return nil
}

// propertyReaders read the property types a Bundle interprets; the others are kept in
// Bundle.Properties as decoded.
var propertyReaders = map[string]func(*bundleBuild, any) error{
	propPackage:         (*bundleBuild).packageProperty,
	propGVK:             func(bb *bundleBuild, v any) error { return gvkProperty(v, &bb.b.ProvidedGVKs) },
	propGVKRequired:     func(bb *bundleBuild, v any) error { return gvkProperty(v, &bb.b.RequiredGVKs) },
	propPackageRequired: (*bundleBuild).packageRequired,
	propCSVMetadata:     (*bundleBuild).csvMetadata,
	propBundleObject:    (*bundleBuild).bundleObject,
}

func (bb *bundleBuild) property(p propertyRecord) error {
	if read, ok := propertyReaders[p.Type]; ok {
		return read(bb, p.Value)
	}
	bb.b.Properties = append(bb.b.Properties, Property(p))
	return nil
}

func (bb *bundleBuild) packageProperty(v any) error {
	if bb.sawPackage {
		return errors.New("a bundle has one olm.package property, found a second")
	}
	bb.sawPackage = true
	var p packageProperty
	if err := decodeValueRecord(v, &p); err != nil {
		return err
	}
	if p.PackageName != bb.b.Package {
		return fmt.Errorf("packageName %q differs from the bundle's package", p.PackageName)
	}
	bb.b.Version = p.Version
	return nil
}

func gvkProperty(v any, dst *[]GVK) error {
	var g GVK
	if err := decodeValueRecord(v, &g); err != nil {
		return err
	}
	*dst = append(*dst, g)
	return nil
}

func (bb *bundleBuild) packageRequired(v any) error {
	var r PackageRequirement
	if err := decodeValueRecord(v, &r); err != nil {
		return err
	}
	bb.b.RequiredPackages = append(bb.b.RequiredPackages, r)
	return nil
}

// csvMetadata reads the olm.csv.metadata property (new rendering).
func (bb *bundleBuild) csvMetadata(v any) error {
	if bb.sawMetadata {
		return errors.New("a bundle has one olm.csv.metadata property, found a second")
	}
	bb.sawMetadata = true
	var m csvMetadataProperty
	if err := decodeValueRecord(v, &m); err != nil {
		return err
	}
	bb.keepAnnotations(m.Annotations)
	bb.b.DisplayName = m.DisplayName
	bb.b.InstallModes = installModes(m.InstallModes)
	bb.b.MinKubeVersion = string(m.MinKubeVersion)
	return nil
}

func (bb *bundleBuild) keepAnnotations(ann map[string]string) {
	for k, v := range ann {
		if keptAnnotation(k) {
			if bb.b.Annotations == nil {
				bb.b.Annotations = map[string]string{}
			}
			bb.b.Annotations[k] = v
		}
	}
}

func (bb *bundleBuild) bundleObject(v any) error {
	var o bundleObjectProperty
	if err := decodeValueRecord(v, &o); err != nil {
		return err
	}
	raw, err := o.manifest()
	if err != nil {
		return err
	}
	if bb.objects == nil {
		bb.objects = &contentsBuilder{pack: true}
	}
	return bb.objects.add(raw)
}

// finish applies the CSV of an old-shape bundle and the annotations' derived fields.
func (bb *bundleBuild) finish() (*Bundle, error) {
	b := bb.b
	if bb.objects != nil {
		c, err := bb.objects.contents()
		if err != nil {
			return nil, err
		}
		b.Contents = c
		if csv := bb.objects.csv; csv != nil {
			// Old shape: the CSV object is the only source of metadata, unless
			// the bundle also has olm.csv.metadata, which then wins (it is what
			// the newer tooling reads) for everything but the name.
			if csv.Metadata.Name != "" {
				b.CSVName = csv.Metadata.Name
			}
			if !bb.sawMetadata {
				bb.keepAnnotations(csv.Metadata.Annotations)
				b.DisplayName = csv.Spec.DisplayName
				b.InstallModes = csv.Spec.InstallModes
				b.MinKubeVersion = string(csv.Spec.MinKubeVersion)
			}
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

// csvObject is the part of a ClusterServiceVersion we read.
type csvObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		DisplayName    string        `json:"displayName"`
		InstallModes   []InstallMode `json:"installModes"`
		MinKubeVersion versionText   `json:"minKubeVersion"`
		csvInstall
	} `json:"spec"`
}
