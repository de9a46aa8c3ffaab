package inputs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestNotObjectErrorNamesMisspeltKeys: a document without apiVersion or kind whose keys are
// those misspelt gets a did-you-mean for the key and, for a kind, for an ODLM kind.
func TestNotObjectErrorNamesMisspeltKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"ODLM's documents: Kind: OperandConfigs", "apiVersion: operator.ibm.com/v1alpha1\nKind: OperandConfigs\nmetadata: {name: x}\n",
			`f.yaml:2: not a Kubernetes object: apiVersion and kind are required: "Kind" is not a field (did you mean "kind"?), and OperandConfigs is not a kind of ODLM's API (did you mean "OperandConfig"?)`},
		{"both keys", "apiversion: v1\nkinds: ConfigMap\n",
			`f.yaml:1: not a Kubernetes object: apiVersion and kind are required: "apiversion" is not a field (did you mean "apiVersion"?); "kinds" is not a field (did you mean "kind"?)`},
		{"a kind far from ODLM's", "apiVersion: v1\nKIND: ConfigMap\n",
			`f.yaml:2: not a Kubernetes object: apiVersion and kind are required: "KIND" is not a field (did you mean "kind"?)`},
		{"nothing near", "apiVersion: v1\nmetadata: {name: x}\n", "f.yaml:1: not a Kubernetes object: apiVersion and kind are required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := manifest.Decode("f.yaml", []byte(tc.in))
			require.NoError(t, err)
			_, err = Classify(docs)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
