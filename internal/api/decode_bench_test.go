package api_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// benchObjects reads the real foundational-services inputs (IBM's, from the reference
// folder: b skips without it).
func benchObjects(b *testing.B, file string) []*manifest.Object {
	b.Helper()
	data, err := os.ReadFile(refdata.Testdata(b, "render/real-foundational-services/input/"+file))
	require.NoError(b, err)
	objs, err := manifest.Decode(file, data)
	require.NoError(b, err)
	return objs
}

// withSubscriptionConfig is a registry entry whose subscriptionConfig goes through OLM's and
// Kubernetes' types (pruned by walk, decoded through JSON).
const withSubscriptionConfig = `
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: r, namespace: ns}
spec:
  operators:
  - name: a
    packageName: p
    channel: v1
    targetNamespaces: [ns]
    subscriptionConfig:
      nodeSelector: {a: b}
      env: [{name: A, value: b}]
      tolerations: [{key: k, operator: Exists, effect: NoSchedule}]
      resources: {requests: {cpu: "0.5", memory: 1024Mi}}
`

// BenchmarkDecodeSpec decodes IBM's real OperandRegistry and OperandConfig specs, and a
// registry entry with a subscriptionConfig.
func BenchmarkDecodeSpec(b *testing.B) {
	registries, configs := benchObjects(b, "registry.yaml"), benchObjects(b, "config.yaml")
	withConfig, err := manifest.Decode("r.yaml", []byte(withSubscriptionConfig))
	require.NoError(b, err)
	b.Run("subscriptionConfig", func(b *testing.B) {
		for b.Loop() {
			var spec api.OperandRegistrySpec
			if _, err := api.DecodeSpec(withConfig[0], &spec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("registry", func(b *testing.B) {
		for b.Loop() {
			for _, o := range registries {
				var spec api.OperandRegistrySpec
				if _, err := api.DecodeSpec(o, &spec); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("config", func(b *testing.B) {
		for b.Loop() {
			for _, o := range configs {
				var spec api.OperandConfigSpec
				if _, err := api.DecodeSpec(o, &spec); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
