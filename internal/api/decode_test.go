package api_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

func decodeOne(t *testing.T, doc string) *manifest.Object {
	t.Helper()
	objs, err := manifest.Decode("t.yaml", []byte(doc))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}

func TestDecodeRegistryReportsUnknownFields(t *testing.T) {
	t.Parallel()
	obj := decodeOne(t, `
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: r, namespace: ns}
spec:
  foo: bar
  operators:
  - name: a
    packageName: p
    channel: v1
    supportStatus: continuous
    targetNamespaces: []
    subscriptionConfig:
      nodeSelectr: {a: b}
      resources: {requests: {cpu: "0.5", memory: 1024Mi}}
`)
	var spec api.OperandRegistrySpec
	issues, err := api.DecodeSpec(obj, &spec)
	require.NoError(t, err)
	var paths []string
	for _, i := range issues {
		paths = append(paths, i.Path)
	}
	assert.Equal(t, []string{"spec.foo", "spec.operators[0].subscriptionConfig.nodeSelectr", "spec.operators[0].supportStatus"}, paths)
	require.Len(t, spec.Operators, 1)
	assert.NotNil(t, spec.Operators[0].TargetNamespaces, "an explicit empty list stays non-nil")
	assert.Empty(t, spec.Operators[0].TargetNamespaces)
	b, err := json.Marshal(spec.Operators[0].SubscriptionConfig)
	require.NoError(t, err)
	assert.JSONEq(t, `{"resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}`, string(b), "quantities are canonicalised as OLM's types write them")
}

func TestDecodeOptionalDistinguishesAbsentNullEmpty(t *testing.T) {
	t.Parallel()
	obj := decodeOne(t, `
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: r, namespace: ns}
spec:
  requests:
  - registry: reg
    operands:
    - name: absent
    - name: null
      spec: null
    - name: empty
      spec: {}
    - name: big
      spec: {n: 12345678901234567890}
`)
	var spec api.OperandRequestSpec
	_, err := api.DecodeSpec(obj, &spec)
	require.NoError(t, err)
	ops := spec.Requests[0].Operands
	assert.False(t, ops[0].Spec.Present)
	assert.True(t, ops[1].Spec.Present)
	assert.Nil(t, ops[1].Spec.Value)
	assert.Equal(t, map[string]any{}, ops[2].Spec.Value)
	assert.Equal(t, map[string]any{"n": json.Number("12345678901234567890")}, ops[3].Spec.Value)
}

func TestDecodeTypeErrorNamesTheField(t *testing.T) {
	t.Parallel()
	obj := decodeOne(t, `
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: r, namespace: ns}
spec:
  operators:
  - name: a
    channel: [v1]
`)
	var spec api.OperandRegistrySpec
	_, err := api.DecodeSpec(obj, &spec)
	require.Error(t, err)
	var fe *api.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "spec.operators[0].channel", fe.Path)
	assert.Contains(t, fe.Msg, "must be a string")
}

func TestDecodePrunesUnknownKeysBeforeDecoding(t *testing.T) {
	t.Parallel()
	obj := decodeOne(t, `
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: r, namespace: ns}
spec:
  requests:
  - registry: reg
    operands:
    - name: a
      kind: K
      apiVersion: v1
      instancename: typo
      Spec: {x: 1}
`)
	var spec api.OperandRequestSpec
	issues, err := api.DecodeSpec(obj, &spec)
	require.NoError(t, err)
	require.Len(t, issues, 2)
	op := spec.Requests[0].Operands[0]
	assert.Empty(t, op.InstanceName, "encoding/json would match instancename case-insensitively; the API server prunes it")
	assert.False(t, op.Spec.Present)
}
