package metaop_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/metaop"
)

func decode(t *testing.T, file, text string) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Decode(file, []byte(text))
	require.NoError(t, err)
	return objs
}

func yamlOf(t *testing.T, objs []*manifest.Object) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, objs))
	return buf.String()
}

func lines(rs diag.Results) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

const unit = `apiVersion: operator.ibm.com/v1alpha1
kind: MetaOperatorCatalog
metadata:
  name: cs
  namespace: ns
  labels: {team: a}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
    note: kept
  uid: 1234
spec:
  operators:
  - name: a
    channel: v1
    packageName: pkg-a
    sourceName: src
    sourceNamespace: olm
  - name: b
    namespace: other
    channel: v1
    packageName: pkg-b
    installPlanApproval: Manual
    targetNamespaces: [other]
  - name: c
    packageName: pkg-c
status:
  operatorsStatus: {a: Running}
---
apiVersion: operator.ibm.com/v1alpha1
kind: MetaOperatorConfig
metadata:
  name: cs
  namespace: ns
spec:
  services:
  - name: a
    spec:
      kindA: {size: 12345678901234567890}
---
apiVersion: operator.ibm.com/v1alpha1
kind: MetaOperatorSet
metadata:
  name: cs
  namespace: ns
spec:
  services:
  - name: b
    channel: v2
    state: present
  - name: a
    state: present
  - name: c
    state: absent
`

func TestConvertUnit(t *testing.T) {
	t.Parallel()
	out, results := metaop.Convert(decode(t, "meta.yaml", unit), metaop.Options{})
	assert.Equal(t, []string{
		`meta.yaml:24: warning: MetaOperatorCatalog ns/cs: spec.operators[2].channel: is not set: ODLM requires a channel, so operator "c" (absent) is left out of the OperandRegistry`,
	}, lines(results))
	assert.Equal(t, `apiVersion: operator.ibm.com/v1alpha1
kind: OperandConfig
metadata:
  name: cs
  namespace: ns
spec:
  services:
  - name: a
    spec:
      kindA:
        size: 12345678901234567890
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata:
  annotations:
    note: kept
  labels:
    team: a
  name: cs
  namespace: ns
spec:
  operators:
  - channel: v1
    name: a
    packageName: pkg-a
    sourceName: src
    sourceNamespace: olm
    targetNamespaces: []
  - channel: v2
    installPlanApproval: Manual
    name: b
    namespace: other
    packageName: pkg-b
    targetNamespaces:
    - other
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata:
  name: cs
  namespace: ns
spec:
  requests:
  - operands:
    - name: b
    - name: a
    registry: cs
`, yamlOf(t, out))
}

func TestConvertIsIndependentOfInputOrder(t *testing.T) {
	t.Parallel()
	objs := decode(t, "meta.yaml", unit)
	a, _ := metaop.Convert(objs, metaop.Options{})
	reversed := []*manifest.Object{objs[2], objs[1], objs[0]}
	b, _ := metaop.Convert(reversed, metaop.Options{})
	assert.Equal(t, yamlOf(t, a), yamlOf(t, b))
}

func TestKindWithCapitalKIsAnErrorNamingTheFix(t *testing.T) {
	t.Parallel()
	objs := decode(t, "seed.yaml", `apiVersion: operator.ibm.com/v1alpha1
Kind: MetaOperatorConfig
metadata:
  name: common-service
spec:
  services: []
`)
	require.Equal(t, metaop.KindConfig, metaop.KindTypo(objs[0]))
	out, results := metaop.Convert(objs, metaop.Options{DefaultNamespace: "cs"})
	assert.Equal(t, []string{
		"seed.yaml:2: MetaOperatorConfig common-service: Kind: the field is spelled kind (lower case): the API server rejects a MetaOperatorConfig written with Kind: (a typo of the Meta Operator's design document); write kind: MetaOperatorConfig",
	}, lines(results))
	assert.Len(t, out, 1, "the document passes through; the error keeps it from being written")
}

func TestDefaultNamespace(t *testing.T) {
	t.Parallel()
	objs := decode(t, "m.yaml", `apiVersion: operator.ibm.com/v1alpha1
kind: MetaOperatorSet
metadata: {name: x}
spec: {services: []}
---
apiVersion: operator.ibm.com/v1alpha1
kind: MetaOperatorCatalog
metadata: {name: x}
spec: {}
`)
	out, results := metaop.Convert(objs, metaop.Options{DefaultNamespace: "def"})
	assert.False(t, results.HasErrors(), lines(results))
	require.Len(t, out, 2)
	for _, o := range out {
		assert.Equal(t, "def", o.Namespace())
	}
	assert.Contains(t, yamlOf(t, out), "operands: []", "a Set with nothing present is an empty request")

	_, results = metaop.Convert(objs, metaop.Options{})
	assert.Equal(t, []string{
		"m.yaml:3: MetaOperatorSet x: metadata.namespace: is required: MetaOperatorSet is namespaced (or give a default namespace, --namespace)",
		"m.yaml:8: MetaOperatorCatalog x: metadata.namespace: is required: MetaOperatorCatalog is namespaced (or give a default namespace, --namespace)",
	}, lines(results))
}

func TestMapResultPointsAtTheMetaField(t *testing.T) {
	t.Parallel()
	c := metaop.Analyze(decode(t, "meta.yaml", unit), metaop.Options{})
	u := c.Units[0]
	require.NotNil(t, u.Registry)
	require.True(t, c.Produced(u.Registry))
	require.Same(t, u, c.UnitOf(u.Request))

	// a registry entry's channel that the Set overrides is the Set's field
	r := c.MapResult(diag.Errorf(u.Registry, "spec.operators[1].channel", "channel %q is not in package; see OperandRegistry ns/cs and OperandRegistry ns/cs-2", "v2"))
	assert.Equal(t, `meta.yaml:48: MetaOperatorSet ns/cs: spec.services[0].channel: channel "v2" is not in package; see MetaOperatorCatalog ns/cs and OperandRegistry ns/cs-2`, r.String())
	// other entry fields are the catalog's
	r = c.MapResult(diag.Errorf(u.Registry, "spec.operators[1].packageName", "package missing"))
	assert.Equal(t, "meta.yaml:21: MetaOperatorCatalog ns/cs: spec.operators[1].packageName: package missing", r.String())
	// request operands are Set services
	r = c.MapResult(diag.Warnf(u.Request, "spec.requests[0].operands[1].name", "on another channel"))
	assert.Equal(t, "meta.yaml:50: warning: MetaOperatorSet ns/cs: spec.services[1].name: on another channel", r.String())
	r = c.MapResult(diag.Errorf(u.Request, "spec.requests", "no operands"))
	assert.Equal(t, "meta.yaml:46: MetaOperatorSet ns/cs: spec.services: no operands", r.String())
	// config fields are the config's
	r = c.MapResult(diag.Errorf(u.OperandConfig, "spec.services[0].spec.kindA", "no alm-example"))
	assert.Equal(t, "meta.yaml:38: MetaOperatorConfig ns/cs: spec.services[0].spec.kindA: no alm-example", r.String())
	// results about other objects are left alone, apart from names in messages
	other := decode(t, "o.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ns}\n")[0]
	r = c.MapResult(diag.Warnf(other, "data", "read by OperandRequest ns/cs."))
	assert.Equal(t, "o.yaml:1: warning: ConfigMap ns/x: data: read by MetaOperatorSet ns/cs.", r.String())
}

func TestCollisionWithAnODLMInput(t *testing.T) {
	t.Parallel()
	objs := decode(t, "m.yaml", unit+`---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: cs, namespace: ns}
spec: {requests: []}
`)
	out, results := metaop.Convert(objs, metaop.Options{})
	require.True(t, results.HasErrors())
	assert.Contains(t, lines(results.Errors())[0], "m.yaml:43: MetaOperatorSet ns/cs: metadata.name: OperandRequest ns/cs is also among the inputs: the Meta Operator CRs")
	assert.Len(t, out, 1, "a failed unit produces nothing")
}
