package fbc_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// realCatalogs is the reference folder's copy of the project's testdata/catalogs: packages
// of the real community and certified catalogs v4.20 (t skips without it).
func realCatalogs(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs")
}

// writeTree writes files (slash paths relative to a new temp folder) and
// returns the folder.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// pkgYAML is an olm.package blob with an icon (which must be dropped).
func pkgYAML(name, defaultChannel string) string {
	return `---
schema: olm.package
name: ` + name + `
defaultChannel: ` + defaultChannel + `
icon:
  base64data: PHN2Zz48L3N2Zz4=
  mediatype: image/svg+xml
`
}

// bundleYAML is a new-shape bundle (olm.csv.metadata); examples is the raw
// alm-examples text, left out when empty.
func bundleYAML(pkg, name, version, examples string) string {
	s := `---
schema: olm.bundle
name: ` + name + `
package: ` + pkg + `
image: quay.io/example/` + name + `:bundle
relatedImages:
- name: operator
  image: quay.io/example/operator:` + version + `
properties:
- type: olm.package
  value:
    packageName: ` + pkg + `
    version: ` + version + `
- type: olm.gvk
  value: {group: example.com, kind: Widget, version: v1}
- type: olm.maxOpenShiftVersion
  value: "4.20"
- type: olm.csv.metadata
  value:
    displayName: Example
    installModes:
    - {type: OwnNamespace, supported: true}
    - {type: AllNamespaces, supported: false}
    annotations:
      capabilities: Basic Install
`
	if examples != "" {
		s += "      alm-examples: " + yamlQuote(examples) + "\n"
	}
	return s
}

// yamlQuote renders s as a YAML (JSON-compatible) double-quoted string.
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// channelYAML is an olm.channel blob; entries are raw YAML list items.
func channelYAML(pkg, name string, entries ...string) string {
	return `---
schema: olm.channel
package: ` + pkg + `
name: ` + name + `
entries:
- ` + strings.Join(entries, "\n- ") + "\n"
}

const widgetExamples = `[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"ratio":0.10,"big":12345678901234567890}}]`

// simpleCatalog is a valid package with one channel of three bundles.
func simpleCatalog(pkg string) string {
	return pkgYAML(pkg, "stable") +
		channelYAML(pkg, "stable",
			"name: "+pkg+".v1.0.0",
			"{name: "+pkg+".v1.1.0, replaces: "+pkg+".v1.0.0}",
			"{name: "+pkg+".v1.2.0, replaces: "+pkg+".v1.1.0, skips: ["+pkg+".v1.0.0]}") +
		bundleYAML(pkg, pkg+".v1.0.0", "1.0.0", widgetExamples) +
		bundleYAML(pkg, pkg+".v1.1.0", "1.1.0", widgetExamples) +
		bundleYAML(pkg, pkg+".v1.2.0", "1.2.0", widgetExamples)
}

// csvJSON is a small ClusterServiceVersion manifest for old-shape bundles.
const csvJSON = `{
  "apiVersion": "operators.coreos.com/v1alpha1",
  "kind": "ClusterServiceVersion",
  "metadata": {
    "name": "old.v0.1.0-csv",
    "annotations": {
      "alm-examples": "[{\"apiVersion\":\"old.example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g1\"}}]",
      "olm.skipRange": ">=0.0.1 <0.1.0"
    }
  },
  "spec": {
    "displayName": "Old Operator",
    "installModes": [
      {"type": "OwnNamespace", "supported": false},
      {"type": "AllNamespaces", "supported": true}
    ]
  }
}`

const crdJSON = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.old.example.com"}}`

// oldShapeCatalog is a package whose bundle carries its CSV and CRD as
// olm.bundle.object properties (the rendering before olm.csv.metadata).
func oldShapeCatalog(csv string) string {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return pkgYAML("old", "alpha") +
		channelYAML("old", "alpha", "name: old.v0.1.0") + `---
schema: olm.bundle
name: old.v0.1.0
package: old
image: quay.io/example/old:bundle
properties:
- type: olm.package
  value: {packageName: old, version: 0.1.0}
- type: olm.bundle.object
  value: {data: ` + b64(crdJSON) + `}
- type: olm.bundle.object
  value: {data: ` + b64(csv) + `}
`
}

// jsonCatalog is a stream of concatenated JSON objects.
const jsonCatalog = `{"schema":"olm.package","name":"js","defaultChannel":"stable"}
{"schema":"olm.channel","package":"js","name":"stable","entries":[{"name":"js.v1"},{"name":"js.v2","replaces":"js.v1"}]}{"schema":"olm.bundle","package":"js","name":"js.v1","image":"x","properties":[{"type":"olm.package","value":{"packageName":"js","version":"1.0.0"}}]}
{
  "schema": "olm.bundle", "package": "js", "name": "js.v2", "image": "y",
  "properties": [
    {"type": "olm.package", "value": {"packageName": "js", "version": "2.0.0"}},
    {"type": "olm.csv.metadata", "value": {"annotations": {"alm-examples": "[{\"kind\":\"J\",\"spec\":{\"n\":1.50}}]"}}}
  ]
}
{"schema":"example.com.custom","whatever":[1,2,3]}
`

const deprecationsCatalog = `---
schema: olm.deprecations
package: dep
entries:
- reference: {schema: olm.package}
  message: the whole package is deprecated
- reference: {schema: olm.channel, name: beta}
  message: use stable
- reference: {schema: olm.bundle, name: dep.v1.0.0}
  message: bundle 1.0.0 has a CVE
`

// yamlUnmarshal decodes a small YAML snippet in tests.
func yamlUnmarshal(s string, v any) error { return yaml.Unmarshal([]byte(s), v) }
