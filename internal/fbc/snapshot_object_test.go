package fbc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// loadSnapshotObject decodes a snapshot file as a render's inputs are decoded and adds
// it with AddSnapshotObject.
func loadSnapshotObject(t *testing.T, path string, withLines bool) (*fbc.Catalog, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	objs, err := manifest.Decode(path, data)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	o := objs[0]
	var lineOf func(string) int
	if withLines {
		lineOf = o.Source.LineOf
	}
	b := fbc.NewBuilder(fbc.LoadOptions{})
	src := fbc.Source{File: o.Source.File, Index: o.Source.Index, Line: o.Source.Line}
	if err := b.AddSnapshotObject(src, o.Map, lineOf); err != nil {
		return nil, err
	}
	return b.Catalog()
}

// TestAddSnapshotObject: a snapshot decoded by the caller gives the catalog the file gives,
// and, with the lines of its fields, the very errors the file gives.
func TestAddSnapshotObject(t *testing.T) {
	c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": simpleCatalog("foo") + simpleCatalog("bar")}))
	require.NoError(t, err)
	snap := string(snapshotOf(t, c))

	t.Run("same catalog", func(t *testing.T) {
		path := filepath.Join(writeTree(t, map[string]string{"s.yaml": snap}), "s.yaml")
		got, err := loadSnapshotObject(t, path, true)
		require.NoError(t, err)
		assert.Equal(t, facts(t, c), facts(t, got))
		assert.Equal(t, snap, string(snapshotOf(t, got)))
	})

	tests := []struct {
		name     string
		old, new string
		want     string // the error, after the file name
	}{
		{"wrong-typed bundle field in the second package", "      version: 1.0.0\n      image: quay.io/example/foo", "      version: [1, 0]\n      image: quay.io/example/foo",
			`:86 (document 0): package "foo": bundle "foo.v1.0.0": CatalogSnapshot: field "version": expected a string, got a list`},
		{"wrong-typed package field", "  - name: foo\n    defaultChannel: stable\n", "  - name: foo\n    defaultChannel: {name: stable}\n",
			`:86 (document 0): package "foo": CatalogSnapshot: field "defaultChannel": expected a string, got a mapping`},
		{"unknown entry field", "      - name: foo.v1.0.0\n", "      - name: foo.v1.0.0\n        weight: 3\n",
			`:86 (document 0): package "foo": channel "stable": CatalogSnapshot: entry: unknown field "weight" (fields: name, replaces, skips, skipRange)`},
		{"wrong-typed header field", "metadata:\n  name: test\n", "metadata: test\n",
			`:1 (document 0): CatalogSnapshot: metadata: field "metadata": expected a mapping, got a string`},
		{"unsupported apiVersion", "odlm-render.io/v1alpha1", "odlm-render.io/v9",
			`:1 (document 0): CatalogSnapshot: apiVersion "odlm-render.io/v9" is not supported (this version reads odlm-render.io/v1alpha1)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, snap, tc.old)
			path := filepath.Join(writeTree(t, map[string]string{"s.yaml": strings.Replace(snap, tc.old, tc.new, 1)}), "s.yaml")
			_, fileErr := fbc.Load(path)
			require.Error(t, fileErr)
			_, objErr := loadSnapshotObject(t, path, true)
			require.Error(t, objErr)
			assert.Equal(t, fileErr.Error(), objErr.Error(), "the same error as the file's")
			assert.Equal(t, path+tc.want, objErr.Error())

			_, noLines := loadSnapshotObject(t, path, false)
			require.Error(t, noLines)
			_, msg, _ := strings.Cut(tc.want, " ")
			assert.Equal(t, path+":1 "+msg, noLines.Error(), "without lines: the document's")
		})
	}

	t.Run("misuse", func(t *testing.T) {
		b := fbc.NewBuilder(fbc.LoadOptions{})
		assert.ErrorContains(t, b.AddSnapshotObject(fbc.Source{File: "x"}, nil, nil), "x (document 0): empty CatalogSnapshot")
		assert.ErrorContains(t, b.AddSnapshotObject(fbc.Source{File: "x"}, map[string]any{"kind": "Other", "apiVersion": fbc.SnapshotAPIVersion}, nil),
			`kind "Other" is not CatalogSnapshot`)
		_, err := b.Catalog()
		require.NoError(t, err)
		assert.ErrorContains(t, b.AddSnapshotObject(fbc.Source{}, map[string]any{}, nil), "already called")
	})
}
