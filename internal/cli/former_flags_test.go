package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
)

// TestFormerFlagNamesAreStillRead: --no-olm (now --odlm-no-olm) renders as the new name does,
// saying the new name on stderr; it is hidden from --help.
func TestFormerFlagNamesAreStillRead(t *testing.T) {
	t.Parallel()
	const input = "../../testdata/render/no-olm-tracking-configmaps/input"
	code, want, stderr := run(t, "", "render", input, "--odlm-no-olm")
	require.Equal(t, cli.ExitOK, code, stderr)
	require.Contains(t, want, "opreq-", "tracking ConfigMaps")
	code, got, stderr := run(t, "", "render", input, "--no-olm")
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Equal(t, want, got)
	assert.Contains(t, stderr, "--no-olm is now --odlm-no-olm: the former name is still read")
	_, help, _ := run(t, "", "render", "--help")
	assert.Contains(t, help, "--odlm-no-olm")
	assert.NotContains(t, help, "--no-olm ")
}
