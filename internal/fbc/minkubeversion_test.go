package fbc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// TestMinKubeVersion: a bundle keeps its CSV's minKubeVersion from olm.csv.metadata or, in
// the old shape, from the CSV object (olm.csv.metadata wins when it has both, as for the
// other metadata); a value that is not a string still loads, as its JSON text; a snapshot
// keeps it, and has no field when the bundle has none.
func TestMinKubeVersion(t *testing.T) {
	t.Parallel()
	withCSV := func(spec string) string {
		return strings.Replace(csvJSON, `"spec": {`, `"spec": {`+spec, 1)
	}
	cases := []struct {
		name, file, catalog string
		want                string
	}{
		{name: "csv metadata", file: "catalog.yaml", catalog: newShape("    minKubeVersion: 1.25.0\n"), want: "1.25.0"},
		{name: "csv metadata none", file: "catalog.yaml", catalog: newShape(""), want: ""},
		{name: "a YAML number keeps its text", file: "catalog.yaml", catalog: newShape("    minKubeVersion: 1.20\n"), want: "1.20"},
		{name: "a quoted v prefix", file: "catalog.yaml", catalog: newShape("    minKubeVersion: \"v1.31\"\n"), want: "v1.31"},
		{name: "a mapping loads as its JSON text", file: "catalog.yaml", catalog: newShape("    minKubeVersion: {major: 1}\n"), want: `{"major":1}`},
		{name: "null is none", file: "catalog.yaml", catalog: newShape("    minKubeVersion: null\n"), want: ""},
		{name: "JSON csv metadata", file: "catalog.json", catalog: `{"schema":"olm.package","name":"foo","defaultChannel":"stable"}
{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v1.0.0"}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v1.0.0","image":"x","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},
 {"type":"olm.csv.metadata","value":{"minKubeVersion":1.30}}]}`, want: "1.30"},
		{name: "old shape", file: "catalog.yaml", catalog: oldShapeCatalog(withCSV(`"minKubeVersion": "1.27.0",`)), want: "1.27.0"},
		{name: "old shape none", file: "catalog.yaml", catalog: oldShapeCatalog(csvJSON), want: ""},
		{name: "old shape number", file: "catalog.yaml", catalog: oldShapeCatalog(withCSV(`"minKubeVersion": 1.27,`)), want: "1.27"},
		{name: "old shape list", file: "catalog.yaml", catalog: oldShapeCatalog(withCSV(`"minKubeVersion": ["1", 2],`)), want: `["1",2]`},
		{name: "olm.csv.metadata wins over the CSV object", file: "catalog.yaml",
			catalog: oldShapeCatalog(withCSV(`"minKubeVersion": "1.27.0",`)) + "- type: olm.csv.metadata\n  value: {minKubeVersion: 1.28.0}\n", want: "1.28.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{tc.file: tc.catalog})
			c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, dir)
			require.NoError(t, err)
			b := onlyHead(t, c)
			assert.Equal(t, tc.want, b.MinKubeVersion)

			snap := string(roundTrip(t, c))
			if tc.want == "" {
				assert.NotContains(t, snap, "minKubeVersion")
			} else {
				assert.Contains(t, snap, "\n      minKubeVersion: ")
			}
			back := loadSnapshotText(t, snap)
			assert.Equal(t, tc.want, onlyHead(t, back).MinKubeVersion)
		})
	}
}

// newShape is simpleCatalog's first package, its bundles' olm.csv.metadata followed by extra
// (keys of the value, indented by 4).
func newShape(extra string) string {
	return pkgYAML("foo", "stable") + channelYAML("foo", "stable", "name: foo.v1.0.0") +
		bundleYAML("foo", "foo.v1.0.0", "1.0.0", widgetExamples) + extra
}

// onlyHead is the head of the only channel of the only package of c.
func onlyHead(t *testing.T, c *fbc.Catalog) *fbc.Bundle {
	t.Helper()
	names := c.PackageNames()
	require.Len(t, names, 1)
	p, _ := c.Package(names[0])
	b, err := p.HeadBundle("")
	require.NoError(t, err)
	return b
}

// loadSnapshotText loads a snapshot's text.
func loadSnapshotText(t *testing.T, snap string) *fbc.Catalog {
	t.Helper()
	dir := writeTree(t, map[string]string{"snapshot.yaml": snap})
	c, err := fbc.Load(dir)
	require.NoError(t, err)
	return c
}
