// Package catalog is the public API for OLM catalog data: it loads file-based catalogs (FBC)
// and CatalogSnapshots (this project's compact copy of the part of a catalog a render
// reads) from files and folders, and offers their typed records: a Catalog of Packages,
// each with its Channels (entries and upgrade edges, heads) and Bundles (versions, install
// modes, provided and required APIs, alm-examples, the contents a bundle installs:
// CRDs, install strategy, other manifests), and the deprecations of olm.deprecations.
// A Set is the catalog data of a cluster as a render sees it, by CatalogSource.
//
//	cat, err := catalog.Load("catalog/")
//	pkg, ok := cat.Package("my-operator")
//	head, err := pkg.HeadBundle("") // the default channel's head
//
// The records are defined in internal/fbc, which reads and checks them (its doc comment
// says how); this package names them. A loaded Catalog is not modified afterwards, so
// concurrent readers are safe. Every error about catalog data is an *Error naming where the
// data came from (file, document, line) and the package, channel or bundle concerned.
// Loading never touches the network and never follows symlinked folders; catalog images
// are read by the odlm-render command (odlm-render catalog extract writes a
// CatalogSnapshot of one).
package catalog
