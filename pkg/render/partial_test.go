package render_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/pkg/render"
)

// The golden files of cases with errors hold no objects (front doors write nothing then).
// These cases also pin what the engine computed before giving up, because that is the
// behaviour under test: one failed operator blocks the operands of its whole
// OperandRequest (docs/semantics.md, Subscriptions: when one is created), not the other operators' Subscriptions.
func TestErrorsBlockOperandsOfTheWholeRequest(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"failed-subscription-blocks-all-operands-of-request": {
			"OperatorGroup kube-green/operand-deployment-lifecycle-manager-operatorgroup",
			"Subscription kube-green/kube-green",
		},
		"request-names-unknown-registry": {
			"OperatorGroup cs/operand-deployment-lifecycle-manager-operatorgroup",
			"Subscription cs/kube-green",
		},
	} {
		t.Run(name, func(t *testing.T) {
			in, opts := loadCase(t, filepath.Join(casesDir, name))
			out := render.Render(in, opts)
			require.True(t, out.Results.HasErrors())
			var got []string
			for _, o := range out.Objects {
				if out.Generated[o] {
					got = append(got, o.Ref().String())
				}
			}
			assert.Equal(t, want, got)
		})
	}
}
