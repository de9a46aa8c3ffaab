// Package render is the engine: a pure function from ODLM inputs, catalog data and the
// objects already known to the manifests the ODLM controller would have created once
// converged, plus diagnostics.
//
// It never reads files, flags, the environment or the network: everything arrives in
// Inputs and Options. Front doors (the CLI, the KRM function) print its Output.
package render

import (
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Inputs is everything a render reads.
type Inputs struct {
	// Objects are the input objects: ODLM custom resources, and any other object, which
	// counts as cluster state (an existing Subscription, OperatorGroup or CR changes what
	// is rendered) and passes through to the output unchanged.
	Objects []*manifest.Object
	// Catalog holds the OLM catalog data; nil renders without one (registry values are then
	// used verbatim and operand CRs from alm-examples cannot be rendered).
	Catalog *catalog.Catalog
	// SourceCatalogs are catalogs known to be the content of one CatalogSource each, keyed
	// "namespace/name" (`--catalog NAMESPACE/NAME=PATH`): for that CatalogSource they stand
	// in for Catalog, which is the content of every other one. The same package may be in
	// several: which CatalogSource offers what decides ODLM's choice of CatalogSource and
	// OLM's choice of dependencies.
	SourceCatalogs map[string]*catalog.Catalog

	sorted bool // Objects are in manifest.Sort order (set between rounds)
}

// Catalogs are the inputs' catalogs as one catalog.Set.
func (in Inputs) Catalogs() catalog.Set {
	return catalog.Set{Plain: in.Catalog, Named: in.SourceCatalogs}
}

// Output is the result of a render. When Results has errors, Objects must not be written.
type Output struct {
	// Objects are the pass-through inputs and the rendered objects, sorted.
	Objects []*manifest.Object
	// Generated reports, for each object in Objects, whether the render made it.
	Generated map[*manifest.Object]bool
	Results   diag.Results
	// Installs are the operators the render installs through OLM (installs.go).
	Installs []Install
	// CatalogSources are the CatalogSources the render knows (objects among the inputs, in a
	// snapshot or live, then those of named catalogs), with the priorities OLM orders them by.
	CatalogSources []KnownCatalogSource
	// SecretFields are, for each object of Objects that the render wrote a value read from a
	// Secret into, the fields holding one (secrets.go); objects without one are absent. A
	// front door that prints the objects' values elsewhere than in the manifests (odlm-render
	// plan) hides these.
	SecretFields map[*manifest.Object]secret.Fields
}
