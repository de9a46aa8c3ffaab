package render_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEngineReadsNoFiles keeps the engine pure: no package of this module that pkg/render
// depends on may import the packages that read files or clusters (front doors load inputs
// and snapshots and hand over objects). client-go's REST client is linked, through OLM's API
// types (their CSV event recorder), but nothing of the engine calls it.
func TestEngineReadsNoFiles(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	require.NoError(t, err)
	banned := []string{
		"github.com/odlm-render/odlm-render/internal/inputs",
		"github.com/odlm-render/odlm-render/internal/cluster/live",
		"k8s.io/client-go/rest",
		"k8s.io/client-go/dynamic",
		"os/exec",
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		require.NotContains(t, banned[:2], pkg, "pkg/render must not depend on %s", pkg)
		if !strings.HasPrefix(pkg, "github.com/odlm-render/odlm-render/") {
			continue
		}
		seen++
		for _, b := range banned {
			require.NotContains(t, imports, b, "%s (a dependency of pkg/render) must not import %s", pkg, b)
		}
	}
	require.Greater(t, seen, 10, "the engine's own packages were listed")
}
