package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
)

// TestMirrorRefusesImagesThatAreNotReferences: a catalog whose relatedImages hold an option
// and a second line makes mirror fail, naming the bundle, and write nothing.
func TestMirrorRefusesImagesThatAreNotReferences(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../testdata/mirror/dependency-added-by-olm/catalog/catalog.yaml")
	require.NoError(t, err)
	hostile := strings.Replace(string(src), `image: "quay.io/example/app-operator@sha256:2222222222222222222222222222222222222222222222222222222222222222"`,
		`image: "--dest-tls-verify=false\nquay.io/evil/x:v1"`, 1)
	require.NotEqual(t, string(src), hostile)
	cat := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cat, "catalog.yaml"), []byte(hostile), 0o644))
	out := filepath.Join(t.TempDir(), "mirror")
	code, _, stderr := run(t, "", "mirror", "../../testdata/mirror/dependency-added-by-olm/input", "--catalog", cat, "-o", out)
	assert.Equal(t, cli.ExitErrors, code, stderr)
	assert.Contains(t, stderr, `bundle app-operator.v1.0.0 (related manager) names "--dest-tls-verify=false\nquay.io/evil/x:v1", which is not an image reference`)
	entries, _ := os.ReadDir(out)
	assert.Empty(t, entries, "nothing is written")
}
