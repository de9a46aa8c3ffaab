package olm_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/olm"
)

func value(t *testing.T, yaml string) map[string]any {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(yaml))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0].Map
}

func TestSubscriptionSpec(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{{
		name: "what ODLM writes is kept",
		in:   "{name: p, channel: v1, source: s, sourceNamespace: ns, startingCSV: p.v1.0.0, installPlanApproval: Manual}",
		want: "{name: p, channel: v1, source: s, sourceNamespace: ns, startingCSV: p.v1.0.0, installPlanApproval: Manual}",
	}, {
		name: "quantities take their canonical form, as ODLM's typed client sends them",
		in:   `{name: p, source: s, sourceNamespace: ns, config: {resources: {requests: {cpu: "0.5", memory: 1024Mi}, limits: {cpu: 1000m}}}}`,
		want: `{name: p, source: s, sourceNamespace: ns, config: {resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "1"}}}}`,
	}, {
		name: "fields OLM's type lacks are dropped (a Subscription read from a cluster)",
		in:   "{name: p, source: s, sourceNamespace: ns, notAField: 1, config: {env: [{name: A, valeu: x}]}}",
		want: "{name: p, source: s, sourceNamespace: ns, config: {env: [{name: A}]}}",
	}, {
		name: "an empty channel is left out",
		in:   `{name: p, channel: "", source: s, sourceNamespace: ns}`,
		want: "{name: p, source: s, sourceNamespace: ns}",
	}, {
		name: "a value of the wrong type names its field",
		in:   "{name: p, channel: 5, source: s, sourceNamespace: ns}",
		err:  "channel: expected a string, got number",
	}, {
		name: "a quantity that does not parse",
		in:   "{name: p, source: s, sourceNamespace: ns, config: {resources: {limits: {cpu: lots}}}}",
		err:  "quantities must match the regular expression",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := olm.SubscriptionSpec(value(t, "spec: "+tt.in)["spec"].(map[string]any))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.NotContains(t, err.Error(), "v1alpha1.", "no Go type names")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, value(t, "spec: "+tt.want)["spec"], got)
		})
	}
}

func TestOperatorGroupSpec(t *testing.T) {
	tests := []struct {
		name    string
		targets []string
		want    string
	}{
		{"own namespace", []string{"ns"}, "{targetNamespaces: [ns]}"},
		{"several", []string{"a", "b"}, "{targetNamespaces: [a, b]}"},
		{"all namespaces: no targets, no empty upgrade strategy", []string{}, "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := olm.OperatorGroupSpec(tt.targets)
			require.NoError(t, err)
			assert.Equal(t, value(t, "spec: "+tt.want)["spec"], got)
		})
	}
}

func TestCatalogSourceSpec(t *testing.T) {
	spec, err := olm.CatalogSourceSpec(value(t, "{sourceType: grpc, image: quay.io/x/y:v1, priority: 10}"))
	require.NoError(t, err)
	assert.Equal(t, 10, spec.Priority)

	spec, err = olm.CatalogSourceSpec(value(t, "{sourceType: grpc, priority: high}"))
	require.Error(t, err)
	assert.Equal(t, "priority: expected an integer, got string", err.Error())
	assert.Equal(t, 0, spec.Priority)

	spec, err = olm.CatalogSourceSpec(nil)
	require.NoError(t, err)
	assert.Zero(t, spec.Priority)
}

func TestLocate(t *testing.T) {
	_, err := olm.CatalogSourceSpec(value(t, "{priority: high}"))
	field, msg := olm.Locate(err, "spec")
	assert.Equal(t, "spec.priority", field)
	assert.Equal(t, "expected an integer, got string", msg.Error())

	field, msg = olm.Locate(errors.New("other"), "spec")
	assert.Equal(t, "spec", field)
	assert.Equal(t, "other", msg.Error())
}
