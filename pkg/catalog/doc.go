// Package catalog owns reading OLM file-based catalogs (FBC): it decodes the
// olm.package, olm.channel, olm.bundle and olm.deprecations blobs of a catalog
// tree, works out channel heads, and parses the alm-examples of a bundle.
//
// It is a decoder of our own, written against the FBC schema documented by
// operator-registry; it does not import operator-registry.
//
// What it must not do:
//   - import pkg/render or know anything about ODLM custom resources: it only
//     answers questions about catalog data;
//   - panic on any input (the decoders are fuzzed);
//   - keep icons (icon.base64data) or whole blobs in memory after decoding:
//     only the fields the renderer needs are kept, so that a 30 MB catalog
//     does not cost hundreds of MB;
//   - follow symlinked folders (a loop would never end) or touch the network.
//
// Every error names where the data came from (file, document index, line when
// known) and the package, channel or bundle concerned; see Error.
package catalog
