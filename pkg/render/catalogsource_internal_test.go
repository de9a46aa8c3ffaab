package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResolveImageTemplate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, template, kube, want string
		ok                         bool
	}{
		{"major.minor as in OLM's example", "quay.io/example-org/example-catalog:v{kube_major_version}.{kube_minor_version}", "1.28.3", "quay.io/example-org/example-catalog:v1.28", true},
		{"all three, with a v prefix and metadata", "quay.io/org/cat:v{kube_major_version}.{kube_minor_version}.{kube_patch_version}", "v1.33.4+k3s1", "quay.io/org/cat:v1.33.4", true},
		{"no kube version: unresolved", "quay.io/org/cat:v{kube_major_version}", "", "", false},
		{"unknown variable stays: not a pull spec", "quay.io/org/cat:{ocp_version}", "1.28.0", "", false},
		{"not an image reference", "not an image {kube_major_version}", "1.28.0", "", false},
		{"bad version", "quay.io/org/cat:v{kube_major_version}", "one.two", "", false},
		{"registry with port and digest-free tag", "registry.local:5000/idx/cat:{kube_minor_version}", "1.30", "registry.local:5000/idx/cat:30", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := resolveImageTemplate(tc.template, tc.kube)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCatalogSourceOrderPutsODLMsOwnCatalogAfterNamespaceAndPriority(t *testing.T) {
	t.Parallel()
	own := &odlmCatalog{namespace: "openshift-marketplace", name: "opencloud-operators"}
	cs := func(ns, name string, priority int) *catalogSource {
		return &catalogSource{namespace: ns, name: name, priority: priority}
	}
	for _, tc := range []struct {
		name   string
		a, b   *catalogSource
		own    *odlmCatalog
		aFirst bool
	}{
		{"ODLM's own wins a tie against a name that sorts first", cs("openshift-marketplace", "opencloud-operators", 0), cs("openshift-marketplace", "cloud-native-postgresql-catalog", 0), own, true},
		{"without ODLM's own catalog, names decide", cs("openshift-marketplace", "opencloud-operators", 0), cs("openshift-marketplace", "cloud-native-postgresql-catalog", 0), nil, false},
		{"a higher priority beats ODLM's own", cs("openshift-marketplace", "opencloud-operators", 0), cs("openshift-marketplace", "mirror", 10), own, false},
		{"the operator's namespace beats ODLM's own", cs("openshift-marketplace", "opencloud-operators", 100), cs("cs", "team", -5), own, false},
		{"ODLM's own is namespace and name: same name elsewhere is not it", cs("other", "opencloud-operators", 0), cs("openshift-marketplace", "b", 0), own, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.aFirst, catalogSourceBefore(tc.a, tc.b, "cs", tc.own))
			assert.Equal(t, !tc.aFirst, catalogSourceBefore(tc.b, tc.a, "cs", tc.own), "the order is strict")
		})
	}
}
