package yamlwrite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestCompatibleOnEveryGolden reads every expected object of the golden cases (render, collection, convert) (one
// object per file, written by manifest.MarshalYAML) and writes it again: the bytes must be
// the file's, and what yaml.v3's encoder writes.
func TestCompatibleOnEveryGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*/*/expected/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		objs, err := manifest.Decode(f, data)
		require.NoError(t, err)
		require.Len(t, objs, 1, f)
		got, err := manifest.MarshalYAML(objs[0].Map)
		require.NoError(t, err)
		assert.Equal(t, string(data), string(got), f)
		assert.Equal(t, reference(t, objs[0].Map), string(got), f)
	}
}
