// Package yamlwrite owns writing YAML text: the block layout this project prints (two-space
// indentation, sequences at their key's column, keys in byte order, empty collections in flow
// style) and the one function that decides how each string is written (Choose: plain, single-
// or double-quoted, or a literal block). Manifests (internal/manifest) and CatalogSnapshots
// (internal/fbc) are both written here.
//
// The bytes are the ones go.yaml.in/yaml/v3's encoder writes for the same value tree with the
// project's settings (indent 2, compact sequences), except that strings YAML 1.1 readers
// (kubectl, sigs.k8s.io/yaml) take for booleans or sexagesimal numbers are double-quoted;
// FuzzWriter holds the two to the same bytes, and every written record to reading back.
//
// yaml.v3's encoder is not used to write: it keeps every event of a document until the
// document ends (a catalog's snapshot would cost hundreds of MB) and is several times slower
// on the render's output.
package yamlwrite
