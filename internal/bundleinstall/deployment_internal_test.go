package bundleinstall

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNoCertsWarning: with --webhook-certs none the warning names the Secrets the bundle's
// Deployment mounts where a webhook server reads its certificate (by volume name or mount
// path), or says it mounts none.
func TestNoCertsWarning(t *testing.T) {
	t.Parallel()
	spec := func(volumes, mounts []any) map[string]any {
		return map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "manager", "volumeMounts": mounts}},
			"volumes":    volumes,
		}}}
	}
	secretVolume := func(name, secret string) any {
		return map[string]any{"name": name, "secret": map[string]any{"secretName": secret}}
	}
	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"none mounted", spec(nil, nil), "it mounts no Secret for its webhook server"},
		{"by mount path", spec([]any{secretVolume("certs", "my-serving-cert"), secretVolume("other", "unrelated")},
			[]any{map[string]any{"name": "certs", "mountPath": "/tmp/k8s-webhook-server/serving-certs"}}),
			"supply Secret(s) my-serving-cert, which it mounts"},
		{"by volume name", spec([]any{secretVolume("webhook-cert", "b"), secretVolume("apiservice-cert", "a")}, nil),
			"supply Secret(s) a, b, which it mounts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := noCertsWarning("ns", "d", tc.spec)
			assert.Contains(t, got, "Deployment ns/d serves webhooks")
			assert.Contains(t, got, tc.want)
			assert.NotContains(t, got, "unrelated")
		})
	}
}
