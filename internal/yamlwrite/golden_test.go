package yamlwrite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestCompatibleOnEveryGolden reads every expected object of the golden cases (render,
// collection, convert, mirror: one object per file written by manifest.MarshalYAML, or
// several joined by "---" lines) and writes them again: the bytes must be the file's, and
// what yaml.v3's encoder writes.
func TestCompatibleOnEveryGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*/*/expected/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		objs, err := manifest.Decode(f, data)
		require.NoError(t, err)
		require.NotEmpty(t, objs, f)
		var docs, refs []string
		for _, o := range objs {
			got, err := manifest.MarshalYAML(o.Map)
			require.NoError(t, err)
			docs = append(docs, string(got))
			refs = append(refs, reference(t, o.Map))
		}
		assert.Equal(t, string(data), strings.Join(docs, "---\n"), f)
		assert.Equal(t, strings.Join(refs, "---\n"), strings.Join(docs, "---\n"), f)
	}
}
