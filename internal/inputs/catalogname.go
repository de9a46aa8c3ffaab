package inputs

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ParseSourceName reads the NAME of `--catalog NAME=PATH`: "namespace/name", or "name" in
// globalNamespace. The name must be a Kubernetes object name (DNS-1123 subdomain) and the
// namespace written a namespace name; ok is false when text is not such a name, so that a
// path holding "=" stays a path (whatever globalNamespace is: the split does not depend on it).
func ParseSourceName(text, globalNamespace string) (key string, ok bool) {
	ns, name, qualified := strings.Cut(text, "/")
	if !qualified {
		ns, name = "", text
	}
	if qualified && len(validation.IsDNS1123Label(ns)) > 0 {
		return "", false
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "", false
	}
	if !qualified {
		ns = globalNamespace
	}
	return ns + "/" + name, true
}

// SplitNamedPath splits a `--catalog` value: "NAME=PATH" gives the CatalogSource key
// (ParseSourceName) and PATH; anything else is a plain path (key ""). An empty PATH after a
// NAME is an error.
func SplitNamedPath(value, globalNamespace string) (key, path string, err error) {
	before, after, found := strings.Cut(value, "=")
	if !found {
		return "", value, nil
	}
	key, ok := ParseSourceName(before, globalNamespace)
	if !ok {
		return "", value, nil
	}
	if after == "" {
		return "", "", fmt.Errorf("%q: no PATH after CatalogSource %s=", value, before)
	}
	return key, after, nil
}
