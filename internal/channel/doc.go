// Package channel owns ODLM's handling of OLM channel names as semantic
// versions: extracting the version embedded in a channel name, comparing
// channels, choosing among disagreeing requests and picking a fallback
// channel when the requested one is missing from the catalog.
//
// Versions are compared with golang.org/x/mod/semver, as ODLM does: a
// pruned form such as "v4.0" or "v4" is valid shorthand, while a form
// without the leading "v" (such as "4.0" or "2023") is invalid and sorts
// below every valid version.
package channel
