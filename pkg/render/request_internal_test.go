package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

func TestEmptyRequestSaysWhetherItLeavesTheOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, annotations string
		keep, inOutput    bool
		says              string
	}{
		{"consumed by default", "", false, false, "leaves it out of the output"},
		{"kept with keep-inputs", "", true, true, "it stays in the output"},
		{"a kpt local-config input is never removed", "annotations: {config.kubernetes.io/local-config: \"true\"}", false, true, "it stays in the output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Decode("t.yaml", []byte("apiVersion: operator.ibm.com/v1alpha1\nkind: OperandRequest\nmetadata: {name: marker, namespace: cpd, "+tc.annotations+"}\nspec: {requests: []}\n"))
			require.NoError(t, err)
			out := Render(Inputs{Objects: objs}, Options{KeepInputs: tc.keep})
			require.Len(t, out.Results, 1)
			assert.Equal(t, diag.Info, out.Results[0].Severity)
			assert.Equal(t, "spec.requests", out.Results[0].Field)
			assert.Contains(t, out.Results[0].Message, tc.says)
			assert.Equal(t, tc.inOutput, len(out.Objects) == 1)
		})
	}
}
