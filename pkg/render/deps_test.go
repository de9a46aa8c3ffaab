package render_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEngineReadsNoFiles keeps the engine pure: pkg/render must not reach the packages that
// read files or clusters (front doors load inputs and snapshots and hand over objects).
func TestEngineReadsNoFiles(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"github.com/odlm-render/odlm-render/internal/inputs",
			"github.com/odlm-render/odlm-render/internal/cluster/live",
			"k8s.io/client-go/rest",
		} {
			require.NotEqual(t, banned, dep, "pkg/render must not depend on %s", banned)
		}
	}
}
