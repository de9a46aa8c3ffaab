package catalog

// The records of a CatalogSnapshot (see snapshot.go for its layout): a snapshot's bundle is
// a Bundle's fields, by name; channel entries, GVKs, package requirements and install modes
// are the FBC's records (records.go). A snapshot is read strictly: knownFields refuses a key
// its record has no field for.

import (
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// snapshotPackageRecord is an element of a snapshot's spec.packages. Its channels and
// bundles are decoded one at a time, so that an error names the channel or bundle.
type snapshotPackageRecord struct {
	Name           string           `json:"name" catalog:"required"`
	DefaultChannel string           `json:"defaultChannel"`
	Channels       []map[string]any `json:"channels"`
	Bundles        []map[string]any `json:"bundles"`
	Deprecations   any              `json:"deprecations"` // an olm.deprecations blob's entries
}

// snapshotChannelRecord is a channel of a snapshot package; its name and entries are an
// olm.channel's (channelRecord), its head as recorded when it was written.
type snapshotChannelRecord struct {
	Name      any    `json:"name"`
	Head      string `json:"head"`
	HeadError string `json:"headError"`
	Entries   any    `json:"entries"`
}

// decodeSnapshotRecord decodes a record of a snapshot, which has no other fields.
func decodeSnapshotRecord(m map[string]any, dst any) error {
	if err := knownFields(m, dst); err != nil {
		return err
	}
	return decodeRecord(m, dst)
}

// snapshotBundleRecord is an element of a snapshot package's bundles.
type snapshotBundleRecord struct {
	Name             string               `json:"name" catalog:"required"`
	Version          string               `json:"version"`
	Image            string               `json:"image"`
	CSVName          string               `json:"csvName"`
	DisplayName      string               `json:"displayName"`
	SkipRange        string               `json:"skipRange"`
	InstallModes     []installMode        `json:"installModes"`
	ProvidedAPIs     []GVK                `json:"providedAPIs"`
	RequiredAPIs     []GVK                `json:"requiredAPIs"`
	RequiredPackages []PackageRequirement `json:"requiredPackages"`
	Properties       []snapshotProperty   `json:"properties"`
	Annotations      map[string]string    `json:"annotations"`
	AlmExamples      examplesText         `json:"almExamples"`
	Contents         any                  `json:"contents"`
}

// contentsRecord is the contents of a snapshot bundle: the CRDs whole, the rest as OLM
// writes it in a CSV (see Contents).
type contentsRecord struct {
	CRDs               []map[string]any  `json:"crds"`
	Permissions        permissionsRecord `json:"permissions"`
	ClusterPermissions permissionsRecord `json:"clusterPermissions"`
	Deployments        []string          `json:"deployments"`
	OwnedCRDs          []crdRefRecord    `json:"ownedCRDs"`
	RequiredCRDs       []crdRefRecord    `json:"requiredCRDs"`
	Objects            []objectRefRecord `json:"objects"`
}

// permissionsRecord is an install strategy's permissions or clusterPermissions, read as
// OLM's type reads them (no unknown field).
type permissionsRecord []v1alpha1.StrategyDeploymentPermissions

func (p *permissionsRecord) fromTree(v any) error {
	return strictJSON(v, (*[]v1alpha1.StrategyDeploymentPermissions)(p))
}

// crdRefRecord is a CRDRef in a snapshot.
type crdRefRecord struct {
	Name    string `json:"name" catalog:"required"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

func (*crdRefRecord) closed() {}

// objectRefRecord is an ObjectRef in a snapshot.
type objectRefRecord struct {
	APIVersion string `json:"apiVersion" catalog:"required"`
	Kind       string `json:"kind" catalog:"required"`
	Name       string `json:"name"`
}

func (*objectRefRecord) closed() {}

// snapshotProperty is a property no other field of a snapshot bundle holds.
type snapshotProperty propertyRecord

// examplesText is the almExamples of a snapshot bundle, back as the annotation's text: the
// parsed list, or the text as written when it did not parse.
type examplesText struct {
	text string
	set  bool
}

func (e *examplesText) fromTree(v any) error {
	switch ex := v.(type) {
	case string:
		*e = examplesText{ex, true}
	case []any:
		text, err := manifest.MarshalJSON(ex)
		if err != nil {
			return err
		}
		*e = examplesText{string(text), true}
	default:
		return fmt.Errorf("expected a list or a string, got %s", manifest.Describe(ex))
	}
	return nil
}

// bundle returns the Bundle the record describes.
func (r *snapshotBundleRecord) bundle(src Source, pkg string) (*Bundle, error) {
	b := &Bundle{Name: r.Name, Package: pkg, Source: src, CSVName: r.Name, Version: r.Version, Image: r.Image,
		DisplayName: r.DisplayName, SkipRange: r.SkipRange, InstallModes: installModes(r.InstallModes),
		ProvidedGVKs: r.ProvidedAPIs, RequiredGVKs: r.RequiredAPIs, RequiredPackages: r.RequiredPackages}
	if r.CSVName != "" {
		b.CSVName = r.CSVName
	}
	for _, p := range r.Properties {
		b.Properties = append(b.Properties, Property(p))
	}
	if len(r.Annotations) > 0 || r.SkipRange != "" || r.AlmExamples.set {
		b.Annotations = make(map[string]string, len(r.Annotations)+2)
	}
	for k, v := range r.Annotations {
		b.Annotations[k] = v
	}
	if r.SkipRange != "" {
		b.Annotations["olm.skipRange"] = r.SkipRange
	}
	if r.AlmExamples.set {
		b.Annotations[almExamples] = r.AlmExamples.text
	}
	if r.Contents != nil {
		cm, ok := asMap(r.Contents)
		if !ok {
			return nil, fmt.Errorf("contents: expected a mapping, got %s", manifest.Describe(r.Contents))
		}
		c, err := decodeSnapshotContents(cm)
		if err != nil {
			return nil, fmt.Errorf("contents: %w", err)
		}
		b.Contents = c
	}
	return b, nil
}
