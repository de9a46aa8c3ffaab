package catalog

// The records of a CatalogSnapshot (see snapshot.go for its layout): a snapshot's bundle is
// a Bundle's fields, by name; channel entries, GVKs, package requirements and install modes
// are the FBC's records (records.go). A snapshot is read strictly: knownFields refuses a key
// its record has no field for.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// snapshotHeaderRecord is a CatalogSnapshot but its packages (spec.packages is written and
// read an element at a time).
type snapshotHeaderRecord struct {
	APIVersion string                 `json:"apiVersion"`
	Kind       string                 `json:"kind"`
	Metadata   snapshotMetadataRecord `json:"metadata"`
	Spec       snapshotSpecRecord     `json:"spec"`
}

// snapshotMetadataRecord is a snapshot's metadata: its name is written, labels and
// annotations are allowed.
type snapshotMetadataRecord struct {
	Name        string `json:"name"`
	Annotations any    `json:"annotations"`
	Labels      any    `json:"labels"`
}

type snapshotSpecRecord struct {
	Source   SnapshotSource `json:"source"`
	Packages any            `json:"packages"`
}

// snapshotPackageRecord is an element of a snapshot's spec.packages. Read, its channels
// are trees (C is map[string]any), decoded one at a time as its bundles are, so that an
// error names the channel or bundle; written, they are channel records. Bundles are written
// one at a time, after the fields before them (writeSnapshotPackage).
type snapshotPackageRecord[C any] struct {
	Name           string           `json:"name" catalog:"required"`
	DefaultChannel string           `json:"defaultChannel"`
	Channels       []C              `json:"channels"`
	Bundles        []map[string]any `json:"bundles"`
	Deprecations   any              `json:"deprecations"` // an olm.deprecations blob's entries
}

// snapshotChannelRecord is a channel of a snapshot package; its name and entries are an
// olm.channel's (channelRecord), its head as recorded when it was written.
type snapshotChannelRecord struct {
	Name      any    `json:"name"`
	Head      string `json:"head"`
	HeadError string `json:"headError"`
	Entries   any    `json:"entries" snapshot:"always"`
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
	InstallModes     []installMode        `json:"installModes" snapshot:"flow"`
	ProvidedAPIs     []GVK                `json:"providedAPIs" snapshot:"flow"`
	RequiredAPIs     []GVK                `json:"requiredAPIs" snapshot:"flow"`
	RequiredPackages []PackageRequirement `json:"requiredPackages" snapshot:"flow"`
	Properties       []snapshotProperty   `json:"properties"`
	Annotations      snapshotAnnotations  `json:"annotations"`
	AlmExamples      examplesText         `json:"almExamples"`
	Contents         any                  `json:"contents"` // a *contentsRecord
}

// contentsRecord is the contents of a snapshot bundle: the CRDs whole, the rest as OLM
// writes it in a CSV (see Contents). Read, a CRD is a tree (CRD is map[string]any);
// written, it is one line of canonical JSON (CRD is jsonFlow).
type contentsRecord[CRD any] struct {
	CRDs               []CRD             `json:"crds" snapshot:"always"`
	Permissions        permissionsRecord `json:"permissions"`
	ClusterPermissions permissionsRecord `json:"clusterPermissions"`
	Deployments        []string          `json:"deployments" snapshot:"flow"`
	OwnedCRDs          []crdRefRecord    `json:"ownedCRDs" snapshot:"flow"`
	RequiredCRDs       []crdRefRecord    `json:"requiredCRDs" snapshot:"flow"`
	Objects            []objectRefRecord `json:"objects" snapshot:"flow"`
}

// permissionsRecord is an install strategy's permissions or clusterPermissions, read as
// OLM's type reads them (no unknown field).
type permissionsRecord []v1alpha1.StrategyDeploymentPermissions

func (p *permissionsRecord) fromTree(v any) error {
	return strictJSON(v, (*[]v1alpha1.StrategyDeploymentPermissions)(p))
}

// snapshotValue is the permissions as a JSON tree (none: left out).
func (p *permissionsRecord) snapshotValue() (any, error) {
	if len(*p) == 0 {
		return nil, nil
	}
	tree, err := manifest.ToValue([]v1alpha1.StrategyDeploymentPermissions(*p))
	if err != nil {
		return nil, err
	}
	return jsonNull{jsonValue(tree)}, nil
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
// parsed list, or the text as written when it did not parse. Written, it is list when the
// annotation parsed, else its text.
type examplesText struct {
	text string
	set  bool
	list []any
}

func (e *examplesText) snapshotValue() (any, error) {
	switch {
	case e.list != nil:
		return e.list, nil
	case e.set:
		return jsonNull{e.text}, nil // as written, so that Examples gives the same answer
	}
	return nil, nil
}

// snapshotAnnotations are a bundle's annotations; a snapshot writes those
// snapshotAnnotation keeps, by key.
type snapshotAnnotations map[string]string

func (a *snapshotAnnotations) snapshotValue() (any, error) {
	var r record
	for _, k := range slices.Sorted(maps.Keys(*a)) {
		if snapshotAnnotation(k) {
			r = append(r, field{k, jsonNull{(*a)[k]}})
		}
	}
	return r, nil
}

func (e *examplesText) fromTree(v any) error {
	switch ex := v.(type) {
	case string:
		*e = examplesText{text: ex, set: true}
	case []any:
		text, err := manifest.MarshalJSON(ex)
		if err != nil {
			return err
		}
		*e = examplesText{text: string(text), set: true}
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
