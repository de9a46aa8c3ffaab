package catalog

import "github.com/odlm-render/odlm-render/internal/fbc"

// The records of a loaded catalog, defined in internal/fbc.
type (
	// Catalog is a decoded, validated file-based catalog: its packages by name.
	Catalog = fbc.Catalog
	// Package is one operator package with its channels, bundles and deprecations.
	Package = fbc.Package
	// Channel is an upgrade graph of bundles.
	Channel = fbc.Channel
	// ChannelEntry is one bundle of a channel and its upgrade edges (replaces, skips,
	// skipRange).
	ChannelEntry = fbc.ChannelEntry
	// Bundle is one installable version of an operator.
	Bundle = fbc.Bundle
	// GVK is an API group, version and kind (a bundle's olm.gvk and olm.gvk.required).
	GVK = fbc.GVK
	// PackageRequirement is an olm.package.required property.
	PackageRequirement = fbc.PackageRequirement
	// Property is a bundle property no Bundle field holds, kept as decoded.
	Property = fbc.Property
	// InstallMode is one entry of a CSV's spec.installModes (OLM's type).
	InstallMode = fbc.InstallMode
	// RelatedImage is an entry of a bundle's relatedImages (OLM's type).
	RelatedImage = fbc.RelatedImage
	// Requirement is one thing a bundle needs OLM v0 to install beside it
	// (Bundle.Requirements): a test on bundles.
	Requirement = fbc.Requirement
	// Candidate is the bundle OLM v0 would install to satisfy a Requirement from one
	// catalog, and the channel it would subscribe to (Catalog.Candidate).
	Candidate = fbc.Candidate
	// Contents is what a bundle installs besides its alm-examples: CRDs, the CSV's install
	// strategy, the other manifests (Bundle.Contents; nil when unknown).
	Contents = fbc.Contents
	// CRDRef names a CRD a CSV owns or requires.
	CRDRef = fbc.CRDRef
	// ObjectRef names a manifest of a bundle.
	ObjectRef = fbc.ObjectRef
	// Install is the part of a ClusterServiceVersion OLM's install strategy turns into
	// objects.
	Install = fbc.Install
	// InstallDeployment is one deployment of an install strategy.
	InstallDeployment = fbc.InstallDeployment
	// Deprecation is one entry of a package's olm.deprecations blob.
	Deprecation = fbc.Deprecation
	// DeprecationReference names what is deprecated: the package, a channel or a bundle.
	DeprecationReference = fbc.DeprecationReference
	// Source tells where a blob came from: file, document index, line.
	Source = fbc.Source
	// Error is the error about catalog data: where it came from, the package, channel or
	// bundle concerned, and the bare cause.
	Error = fbc.Error
	// LoadOptions tunes LoadWith: the packages to keep, related images, the contents of
	// every bundle, the folders files must stay in.
	LoadOptions = fbc.LoadOptions
)

// Causes of errors about catalog data, for errors.Is.
var (
	// ErrNoChannelHead: no entry of a channel is its head (Channel.Head).
	ErrNoChannelHead = fbc.ErrNoChannelHead
	// ErrMultipleChannelHeads: more than one entry of a channel could be its head.
	ErrMultipleChannelHeads = fbc.ErrMultipleChannelHeads
	// ErrDuplicate: a package, channel, bundle or deprecations blob is defined twice.
	ErrDuplicate = fbc.ErrDuplicate
)

// Load reads catalog files and folders (recursively; .yaml, .yml and .json files, FBC blobs
// or CatalogSnapshots, honouring .indexignore files). Several paths form one catalog. A
// package defined twice (two olm.package blobs with the same name, across paths or files)
// is an error naming both files.
func Load(paths ...string) (*Catalog, error) { return fbc.Load(paths...) }

// LoadWith is Load with options.
func LoadWith(opts LoadOptions, paths ...string) (*Catalog, error) {
	return fbc.LoadWith(opts, paths...)
}
