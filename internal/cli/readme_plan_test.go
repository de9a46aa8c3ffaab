package cli

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
)

// TestREADMEPlanSample keeps the sample pull-request comment in docs/plan.md the golden
// output of `plan -o markdown` for the kube-green case (testdata/plan/kube-green-crd-changes;
// go test ./internal/cli -run TestREADMEPlanSample -update rewrites it).
func TestREADMEPlanSample(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile("../../testdata/plan/kube-green-crd-changes/expected/stdout.md")
	require.NoError(t, err)
	golden.Section(t, "../../docs/plan.md", "plan sample", string(md))
}
