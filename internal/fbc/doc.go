// Package fbc owns reading OLM file-based catalogs (FBC): it decodes the
// olm.package, olm.channel, olm.bundle and olm.deprecations blobs of a catalog
// tree, works out channel heads, and parses the alm-examples of a bundle. It
// also reads and writes CatalogSnapshots, this project's compact copy of the
// part of a catalog a render reads (snapshot.go).
//
// It defines the typed records of a loaded catalog (Catalog, Package, Channel, Bundle,
// Contents…) and the machinery that fills them: the Builder, which the front doors feed
// from files, blobs found among their inputs and image layers (Tree); the splitters and
// peeks that cut a stream below the parser; the snapshot writer. pkg/catalog is its public
// face: it aliases the records and offers Load and LoadWith; the rest stays here.
//
// It is a decoder of our own, written against the FBC schema documented by
// operator-registry; of operator-registry it imports only alpha/model, whose own
// validation says which catalogs `opm serve` refuses (opm.go, Catalog.OPMRefusals).
//
// How it reads (decode.go, split.go, prune.go, stream.go): a stream is cut
// into documents without being parsed; a peek at each document's unindented
// lines names its schema and package, so that blobs of packages not asked for
// are dropped unparsed; the rest is parsed by workers, after the text of the
// CSV metadata no Bundle field comes from (crdDescriptions, descriptions,
// icons…) is cut out; items reach the Builder in document order. Shortcuts
// never change a result: whatever they cannot read exactly is parsed in full
// (FuzzStreamingMatchesReference checks it against a plain decoder).
//
// What it reads is written down once: records.go and records_snapshot.go define each blob
// schema, property value and snapshot element as a Go struct with json tags, which one
// decoder (tree_decode.go) fills from the parsed blob, whichever way it came (an FBC file,
// a CatalogSnapshot, a caller's AddBlob).
//
// What it must not do:
//   - import pkg/render or pkg/catalog, or know anything about ODLM custom resources: it
//     only answers questions about catalog data;
//   - panic on any input (the decoders are fuzzed);
//   - keep icons, descriptions, related images (unless asked:
//     LoadOptions.RelatedImages, which catalog extract sets so that
//     snapshots carry them) or whole blobs in memory after decoding, or hold more than a few documents of a
//     stream at once: only the fields the renderer and a snapshot need are
//     kept, so that a 33 MB catalog costs about 8 MB loaded;
//   - follow symlinked folders (a loop would never end) or touch the network
//     (images are internal/image's: it feeds their layers to a Tree).
//
// Every error names where the data came from (file, document index, line when
// known) and the package, channel or bundle concerned; see Error.
package fbc
