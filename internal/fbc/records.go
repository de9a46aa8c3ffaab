package fbc

// The records of a file-based catalog, once: one Go struct per blob schema (olm.package,
// olm.channel, olm.bundle, olm.deprecations) and per property value the render reads, with
// json tags naming their fields, as operator-registry's declcfg types do. The public types
// they hold (ChannelEntry, GVK, PackageRequirement, RelatedImage, DeprecationReference) are
// tagged likewise. decodeRecord (tree_decode.go) fills them from a blob; a field tagged
// catalog:"required" must be set; each record's validate checks what the types cannot say.
// The FBC loader and the CatalogSnapshot reader (records_snapshot.go) both read them.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// packageRecord is an olm.package blob; its icon is never read (and prune cuts it out).
type packageRecord struct {
	Schema         string `json:"schema"`
	Name           string `json:"name" catalog:"required"`
	DefaultChannel string `json:"defaultChannel"`
	Description    string `json:"description"`
}

// channelRecord is an olm.channel blob.
type channelRecord struct {
	Schema  string         `json:"schema"`
	Package string         `json:"package"`
	Name    string         `json:"name" catalog:"required"`
	Entries []ChannelEntry `json:"entries"`
}

func (e *ChannelEntry) label(i int) string {
	if e.Name == "" {
		return fmt.Sprintf("entry %d", i)
	}
	return fmt.Sprintf("entry %q", e.Name)
}

// validate: an entry appears once.
func (r *channelRecord) validate() error {
	seen := make(map[string]int, len(r.Entries))
	for i, e := range r.Entries {
		if j, dup := seen[e.Name]; dup {
			return fmt.Errorf("entries %d and %d are both %q", j, i, e.Name)
		}
		seen[e.Name] = i
	}
	return nil
}

// bundleRecord is an olm.bundle blob. RelatedImages stays a tree: it is decoded (into
// []RelatedImage) only when LoadOptions.RelatedImages asks for it.
type bundleRecord struct {
	Schema        string           `json:"schema"`
	Package       string           `json:"package"`
	Name          string           `json:"name" catalog:"required"`
	Image         string           `json:"image"`
	RelatedImages any              `json:"relatedImages"`
	Properties    []propertyRecord `json:"properties"`
}

// propertyRecord is an element of a bundle's properties; Value is read by the property's
// reader (bundleProperties), or kept as decoded.
type propertyRecord struct {
	Type  string `json:"type" catalog:"required"`
	Value any    `json:"value" snapshot:"always"`
}

func (*propertyRecord) label(i int) string { return fmt.Sprintf("property %d", i) }

// packageProperty is the value of a bundle's olm.package property.
type packageProperty struct {
	PackageName string `json:"packageName" catalog:"required"`
	Version     string `json:"version"`
}

// csvMetadataProperty is the part of an olm.csv.metadata property a Bundle keeps.
type csvMetadataProperty struct {
	Annotations    map[string]string `json:"annotations"`
	DisplayName    string            `json:"displayName"`
	InstallModes   []installMode     `json:"installModes"`
	MinKubeVersion versionText       `json:"minKubeVersion"`
}

// versionText is a version field read leniently (a CSV's minKubeVersion): a string as it
// is, any other value as its JSON text, so that a catalog whose field is not a string still
// loads and the reader of the version reports it ("1.25" written as a YAML number stays
// "1.25": numbers keep their text).
type versionText string

func (t *versionText) fromTree(v any) error {
	if s, err := scalarString(v, "version"); err == nil {
		*t = versionText(s)
		return nil
	}
	text, err := manifest.MarshalJSON(jsonValue(v))
	if err != nil {
		return err
	}
	*t = versionText(text)
	return nil
}

// UnmarshalJSON reads the field of a CSV decoded with encoding/json.
func (t *versionText) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = versionText(s)
		return nil
	}
	if string(data) == "null" {
		*t = ""
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return err
	}
	*t = versionText(buf.String())
	return nil
}

// installMode is an element of installModes (InstallMode is OLM's type, without the
// required mark).
type installMode struct {
	Type      string `json:"type" catalog:"required"`
	Supported bool   `json:"supported"`
}

func installModes(l []installMode) []InstallMode {
	if l == nil {
		return nil
	}
	out := make([]InstallMode, len(l))
	for i, m := range l {
		out[i] = InstallMode{Type: v1alpha1.InstallModeType(m.Type), Supported: m.Supported}
	}
	return out
}

// bundleObjectProperty is an olm.bundle.object property: base64 of a JSON manifest (the
// CSV, a CRD, a Service…).
type bundleObjectProperty struct {
	Ref  any    `json:"ref"`
	Data string `json:"data"`
}

// manifest returns the decoded manifest.
func (o *bundleObjectProperty) manifest() ([]byte, error) {
	if o.Ref != nil && o.Data == "" {
		return nil, errors.New("olm.bundle.object with a file ref is not supported: render the catalog with the objects inlined (data)")
	}
	if o.Data == "" {
		return nil, errors.New(`field "data" is missing or empty`)
	}
	raw, err := base64.StdEncoding.DecodeString(o.Data)
	if err != nil {
		return nil, fmt.Errorf("data: invalid base64: %w", err)
	}
	return raw, nil
}

// deprecationsRecord is an olm.deprecations blob.
type deprecationsRecord struct {
	Schema  string             `json:"schema"`
	Package string             `json:"package"`
	Entries []deprecationEntry `json:"entries"`
}

// deprecationEntry is one entry of an olm.deprecations blob.
type deprecationEntry struct {
	Reference *DeprecationReference `json:"reference" catalog:"required" snapshot:"flow"`
	Message   string                `json:"message"`
}

func (*deprecationEntry) label(i int) string { return fmt.Sprintf("entry %d", i) }

// validate: the reference names one of the three schemas, and a channel or a bundle.
func (e *deprecationEntry) validate() error {
	switch s := e.Reference.Schema; s {
	case schemaPackage:
	case schemaChannel, schemaBundle:
		if e.Reference.Name == "" {
			return fmt.Errorf("a %s reference needs a name", s)
		}
	default:
		return fmt.Errorf("reference schema %q is not one of olm.package, olm.channel, olm.bundle", s)
	}
	return nil
}
