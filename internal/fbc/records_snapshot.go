package fbc

// The records of a CatalogSnapshot (see snapshot.go for its layout): a snapshot's bundle is
// a Bundle's fields, by name; channel entries, GVKs, package requirements and install modes
// are the FBC's records (records.go). A snapshot is read strictly: knownFields refuses a key
// its record has no field for.

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
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
	MinKubeVersion   string               `json:"minKubeVersion"`
	InstallModes     []installMode        `json:"installModes" snapshot:"flow"`
	ProvidedAPIs     []GVK                `json:"providedAPIs" snapshot:"flow"`
	RequiredAPIs     []GVK                `json:"requiredAPIs" snapshot:"flow"`
	RequiredPackages []PackageRequirement `json:"requiredPackages" snapshot:"flow"`
	Properties       []snapshotProperty   `json:"properties"`
	Annotations      snapshotAnnotations  `json:"annotations"`
	AlmExamples      examplesText         `json:"almExamples"`
	RelatedImages    relatedImagesRecord  `json:"relatedImages"`
	Contents         any                  `json:"contents"` // a *contentsRecord
}

// relatedImagesRecord is the relatedImages of a snapshot bundle: written when the bundle's
// related images are known (Bundle.RelatedImagesKnown), [] when the catalog lists none, so
// that a reader tells "none listed" from "not kept" (a snapshot written before they were
// kept has no such field); each element on one line, in the catalog's order.
type relatedImagesRecord struct {
	list  []relatedImageRecord
	known bool
}

// relatedImageRecord is a RelatedImage in a snapshot, read strictly (no other key).
type relatedImageRecord struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

func (*relatedImageRecord) closed() {}

func (*relatedImageRecord) label(i int) string { return fmt.Sprintf("element %d", i) }

// relatedImagesRecordOf is the record of a bundle's related images.
func relatedImagesRecordOf(b *Bundle) relatedImagesRecord {
	r := relatedImagesRecord{known: b.RelatedImagesKnown}
	if r.known && len(b.RelatedImages) > 0 {
		r.list = make([]relatedImageRecord, len(b.RelatedImages))
		for i, ri := range b.RelatedImages {
			r.list[i] = relatedImageRecord(ri)
		}
	}
	return r
}

func (r *relatedImagesRecord) snapshotValue() (any, error) {
	if !r.known {
		return nil, nil
	}
	if len(r.list) == 0 {
		return []any{}, nil
	}
	return listValue(reflect.ValueOf(r.list), true)
}

func (r *relatedImagesRecord) fromTree(v any) error {
	if err := decodeList(v, reflect.ValueOf(&r.list).Elem(), "relatedImages"); err != nil {
		return err
	}
	r.known = true
	return nil
}

// relatedImages are the RelatedImages the record describes (nil for none).
func (r *relatedImagesRecord) relatedImages() []RelatedImage {
	if len(r.list) == 0 {
		return nil
	}
	out := make([]RelatedImage, len(r.list))
	for i, ri := range r.list {
		out[i] = RelatedImage(ri)
	}
	return out
}

// contentsRecord is the contents of a snapshot bundle: the CRDs and the other manifests
// whole, the install strategy whole (install), the rest as OLM writes it in a CSV (see
// Contents). Read, a CRD or manifest is a tree (J is map[string]any); written, it is one
// line of canonical JSON (J is jsonFlow). A snapshot written before the install strategy
// was kept has no install and no manifests.
type contentsRecord[J any] struct {
	CRDs               []J               `json:"crds" snapshot:"always"`
	Permissions        permissionsRecord `json:"permissions"`
	ClusterPermissions permissionsRecord `json:"clusterPermissions"`
	Deployments        []string          `json:"deployments" snapshot:"flow"`
	OwnedCRDs          []crdRefRecord    `json:"ownedCRDs" snapshot:"flow"`
	RequiredCRDs       []crdRefRecord    `json:"requiredCRDs" snapshot:"flow"`
	Objects            []objectRefRecord `json:"objects" snapshot:"flow"`
	Install            any               `json:"install"`   // an *installRecord
	Manifests          []J               `json:"manifests"` // objects whole, in the same order
}

// strictList is a list of one of OLM's types, read as OLM's type reads it (no unknown
// field) and written as encoding/json writes it.
type strictList[T any] []T

func (l *strictList[T]) fromTree(v any) error {
	return strictJSON(v, (*[]T)(l))
}

// snapshotValue is the list as a JSON tree (none: left out).
func (l *strictList[T]) snapshotValue() (any, error) {
	if len(*l) == 0 {
		return nil, nil
	}
	tree, err := manifest.ToValue([]T(*l))
	if err != nil {
		return nil, err
	}
	return jsonNull{jsonValue(tree)}, nil
}

// permissionsRecord is an install strategy's permissions or clusterPermissions.
type permissionsRecord = strictList[v1alpha1.StrategyDeploymentPermissions]

// installRecord is an Install in a snapshot (read strictly, by decodeInstallRecord); a
// deployment's spec is one line of canonical JSON.
type installRecord struct {
	CSVName      string                                  `json:"csvName" snapshot:"always"`
	Annotations  stringMap                               `json:"annotations"`
	Deployments  []installDeploymentRecord               `json:"deployments"`
	Webhooks     strictList[v1alpha1.WebhookDescription] `json:"webhooks"`
	APIServices  []string                                `json:"apiServices" snapshot:"flow"`
	InstallModes []installMode                           `json:"installModes" snapshot:"flow"`
}

// installDeploymentRecord is an InstallDeployment in a snapshot.
type installDeploymentRecord struct {
	Name  string     `json:"name"`
	Label stringMap  `json:"label"`
	Spec  objectText `json:"spec" snapshot:"always"`
}

func (*installDeploymentRecord) closed() {}

// installRecordOf is the record of an Install; canonical tells that its deployments' specs
// are canonicalJSON already.
func installRecordOf(in *Install, canonical bool) (*installRecord, error) {
	r := &installRecord{CSVName: in.CSVName, Annotations: in.Annotations, Webhooks: in.Webhooks,
		APIServices: in.APIServices}
	for _, m := range in.InstallModes {
		r.InstallModes = append(r.InstallModes, installMode{Type: string(m.Type), Supported: m.Supported})
	}
	for _, d := range in.Deployments {
		spec := d.Spec
		if !canonical {
			var err error
			if spec, err = canonicalText(spec); err != nil {
				return nil, fmt.Errorf("install deployment %q: spec: %w", d.Name, err)
			}
		}
		r.Deployments = append(r.Deployments, installDeploymentRecord{Name: d.Name, Label: d.Label, Spec: objectText(spec)})
	}
	return r, nil
}

// decodeInstallRecord reads the install field of a snapshot's contents.
func decodeInstallRecord(v any) (*Install, error) {
	m, ok := asMap(v)
	if !ok {
		return nil, fmt.Errorf("expected a mapping, got %s", manifest.Describe(v))
	}
	var r installRecord
	if err := decodeSnapshotRecord(m, &r); err != nil {
		return nil, err
	}
	return r.install(), nil
}

// install is the Install the record describes.
func (r *installRecord) install() *Install {
	in := &Install{CSVName: r.CSVName, Annotations: nonEmptyMap(r.Annotations), Webhooks: nonEmpty(r.Webhooks),
		APIServices: nonEmpty(r.APIServices), InstallModes: installModes(nonEmpty(r.InstallModes))}
	for _, d := range r.Deployments {
		spec := json.RawMessage(d.Spec)
		if spec == nil {
			spec = json.RawMessage("null")
		}
		in.Deployments = append(in.Deployments, InstallDeployment{Name: d.Name, Label: nonEmptyMap(d.Label), Spec: spec})
	}
	return in
}

// stringMap is a mapping of strings (annotations, labels), written with its keys sorted,
// an empty value as "".
type stringMap map[string]string

func (m *stringMap) snapshotValue() (any, error) {
	var r record
	for _, k := range slices.Sorted(maps.Keys(*m)) {
		r = append(r, field{k, jsonNull{(*m)[k]}})
	}
	return r, nil
}

// objectText is a JSON object's canonical text (a deployment's spec): written on one line
// as it is, read from a mapping.
type objectText json.RawMessage

func (t *objectText) snapshotValue() (any, error) {
	if len(*t) == 0 {
		return nil, nil
	}
	return jsonFlow(*t), nil
}

func (t *objectText) fromTree(v any) error {
	if _, ok := asMap(v); !ok {
		return fmt.Errorf("expected a mapping, got %s", manifest.Describe(v))
	}
	text, err := canonicalJSON(jsonValue(v))
	if err != nil {
		return err
	}
	*t = objectText(text)
	return nil
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

// bundle returns the Bundle the record describes; its related images only when
// relatedImages asks for them (LoadOptions.RelatedImages).
func (r *snapshotBundleRecord) bundle(src Source, pkg string, relatedImages bool) (*Bundle, error) {
	b := &Bundle{Name: r.Name, Package: pkg, Source: src, CSVName: r.Name, Version: r.Version, Image: r.Image,
		DisplayName: r.DisplayName, SkipRange: r.SkipRange, MinKubeVersion: r.MinKubeVersion, InstallModes: installModes(r.InstallModes),
		ProvidedGVKs: r.ProvidedAPIs, RequiredGVKs: r.RequiredAPIs, RequiredPackages: r.RequiredPackages}
	if r.CSVName != "" {
		b.CSVName = r.CSVName
	}
	if relatedImages && r.RelatedImages.known {
		b.RelatedImages, b.RelatedImagesKnown = r.RelatedImages.relatedImages(), true
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
