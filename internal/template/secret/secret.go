// Package secret is the render's one answer to the two questions every policy and message
// about Secrets asks: does a reference name a Secret, and which fields of an object hold a
// value derived from one. templatingValueFrom, --secrets forbid, --explain, bind info and the
// results all ask here, so that no two of them can disagree.
package secret

import (
	"errors"
	"fmt"
	"strings"
)

// Group returns the API group of an apiVersion: the part before "/", or "" (the core group)
// when there is none. It is how look-ups match objects (manifest.Ref.Key), so every question
// about a kind asks it the same way.
func Group(apiVersion string) string {
	g, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return g
}

// IsKind reports whether apiVersion and kind name a Secret: kind Secret in the core group,
// whatever the version. Look-ups match objects by group and kind (an API server keeps one
// object under every version of its kind), so "v2" or "/v1" would read the same Secret as
// "v1": a test on the version alone lets a Secret's value pass as any other value.
func IsKind(apiVersion, kind string) bool {
	return kind == "Secret" && Group(apiVersion) == ""
}

// CheckAPIVersion refuses an apiVersion no API server serves: an empty one, a malformed
// group/version ("/v1", "apps/", "a/b/c"), or a version of the core group other than v1 (the
// only one it has). Look-ups match by group, so without this check such a reference would
// read an object the API server would never return for it.
func CheckAPIVersion(apiVersion string) error {
	group, version, grouped := strings.Cut(apiVersion, "/")
	switch {
	case apiVersion == "":
		return errors.New("apiVersion is empty")
	case !grouped && apiVersion != "v1":
		return fmt.Errorf("apiVersion %q is not served: the core group has only version v1", apiVersion)
	case grouped && (group == "" || version == "" || strings.Contains(version, "/")):
		return fmt.Errorf("apiVersion %q is malformed: it is group/version, or v1 for the core group", apiVersion)
	}
	return nil
}
