package template_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/template"
)

// The examples of the user documentation's "Dynamic Configuration with Templating" section,
// with the results the controller's code gives (docs/semantics.md, Templating). Where the document's
// YAML is mis-indented (templatingValueFrom left empty with its content beside it), both the
// text as written and the evident intent are tested.

const seedObjects = `
apiVersion: v1
kind: ConfigMap
metadata: {name: openshift-service-ca.crt, namespace: service-ns}
data: {service-ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: my-configmap, namespace: my-namespace}
data: {data.key: "8081", key: not-this-one}
---
apiVersion: v1
kind: Secret
metadata: {name: my-secret, namespace: my-namespace}
stringData: {data.key: ` + planted + `}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: my-deployment, namespace: my-namespace}
status: {replicas: 3}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: environment-config, namespace: service-ns}
data: {environment: production}
---
apiVersion: v1
kind: Secret
metadata: {name: api-secrets, namespace: default}
stringData: {api-key: secret-api-key-value}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: config-values, namespace: default}
data: {array-item-2: config-value-from-key}
`

func seedReader(t *testing.T, extra string) *memReader {
	return newReader(t, seedObjects+"---\n"+extra)
}

func seedResolve(t *testing.T, in string, r *memReader) outcome {
	t.Helper()
	o := resolveIn(t, "service-ns", value(t, in), r)
	assertNoSecret(t, o)
	return o
}

func TestSeedSecretFromConfigMap(t *testing.T) {
	t.Parallel()
	data := `
stringData:
  ca.crt:
    templatingValueFrom:
      configMapKeyRef:
        key: service-ca.crt
        name: openshift-service-ca.crt
      required: true
type: kubernetes.io/tls
`
	o := seedResolve(t, data, seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{
		"stringData": map[string]any{"ca.crt": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
		"type":       "kubernetes.io/tls",
	}, o.out)
	require.Len(t, o.uses, 1)
	assert.Equal(t, `stringData["ca.crt"]`, o.uses[0].Path)

	// Missing ConfigMap: required, so ODLM keeps retrying; the error says which ref.
	o = seedResolve(t, data, newReader(t, ""))
	var te *template.Error
	require.ErrorAs(t, o.err, &te)
	assert.True(t, te.Required)
	assert.Equal(t, &template.Source{Ref: "configMapKeyRef", APIVersion: "v1", Kind: "ConfigMap", Namespace: "service-ns",
		Name: "openshift-service-ca.crt", Key: "service-ca.crt"}, te.Ref)
}

func TestSeedValueSources(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"configMapKeyRef (intended indentation): key is a plain data key", `
port:
  templatingValueFrom:
    configMapKeyRef:
      name: my-configmap        # Name of the ConfigMap
      namespace: my-namespace  # Optional: Defaults to OperandConfig namespace
      key: data.key            # Key within the ConfigMap's data field
    # required: true           # Optional: Defaults to false
`, `port: "8081"`},
		{"configMapKeyRef as written: templatingValueFrom is null, the field is removed", `
port:
  templatingValueFrom:
  configMapKeyRef:
    name: my-configmap        # Name of the ConfigMap
    namespace: my-namespace  # Optional: Defaults to OperandConfig namespace
    key: data.key            # Key within the ConfigMap's data field
  # required: true           # Optional: Defaults to false
`, `{}`},
		{"objectRef (intended indentation)", `
replicas:
  templatingValueFrom:
    objectRef:
      apiVersion: apps/v1
      kind: Deployment
      name: my-deployment
      namespace: my-namespace  # Optional: Defaults to OperandConfig namespace
      path: .status.replicas   # JSONPath expression to the desired field
    # required: true           # Optional: Defaults to false
`, `replicas: "3"`},
		{"objectRef as written: the field is removed", `
replicas:
  templatingValueFrom:
  objectRef:
    apiVersion: apps/v1
    kind: Deployment
    name: my-deployment
    namespace: my-namespace  # Optional: Defaults to OperandConfig namespace
    path: .status.replicas   # JSONPath expression to the desired field
  # required: true           # Optional: Defaults to false
`, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := seedResolve(t, tc.in, seedReader(t, ""))
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

func TestSeedSecretKeyRef(t *testing.T) {
	t.Parallel()
	o := seedResolve(t, `
password:
  templatingValueFrom:
    secretKeyRef:
      name: my-secret           # Name of the Secret
      namespace: my-namespace  # Optional: Defaults to OperandConfig namespace
      key: data.key            # Key within the Secret's data field
    # required: true           # Optional: Defaults to false
`, seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{"password": planted}, o.out)
	require.Len(t, o.uses, 1)
	assert.True(t, o.uses[0].Secret)
	assert.Empty(t, o.uses[0].Value)
}

func TestSeedDefault(t *testing.T) {
	t.Parallel()
	const in = `
storage:
  templatingValueFrom:
    default:
      required: true
      configMapKeyRef:
        name: defaults
        key: standard-storage
    configMapKeyRef:
      name: global-defaults
      key: standard-storage
    secretKeyRef:
      name: backup-config
      key: storage-value
    objectRef:
      apiVersion: v1
      kind: PersistentVolume
      name: reference-pv
      path: .spec.capacity.storage
`
	const (
		defaults = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: defaults, namespace: service-ns}\ndata: {standard-storage: 5Gi}\n---\n"
		global   = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: global-defaults, namespace: service-ns}\ndata: {standard-storage: 10Gi}\n---\n"
		backup   = "apiVersion: v1\nkind: Secret\nmetadata: {name: backup-config, namespace: service-ns}\nstringData: {storage-value: 20Gi}\n---\n"
		pv       = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: reference-pv}\nspec: {capacity: {storage: 30Gi}}\n---\n"
	)
	for _, tc := range []struct{ name, objects, want string }{
		{"the objectRef wins over everything (code: objectRef > secret > configMap > default)", defaults + global + backup + pv, `storage: 30Gi`},
		{"then the secret", defaults + global + backup, `storage: 20Gi`},
		{"then the primary configMap", defaults + global, `storage: 10Gi`},
		{"the default only when every primary ref is empty", defaults, `storage: 5Gi`},
		{"default.required has no effect: the field is removed", "", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := seedResolve(t, in, seedReader(t, tc.objects))
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

const seedArray = `
items:
  templatingValueFrom:
    conditional:
      expression:
        equal:
          left:
            objectRef:
              apiVersion: v1
              kind: ConfigMap
              name: environment-config
              path: %s
          right:
            literal: "production"
      then:
        array:
          - literal: "value1"              # Simple string value
          - map:                           # Map structure with static values
              hostname: "backend-service"
              enabled: true
              port: 8080
          - map:                           # Map with dynamic reference
              apikey:
                secretKeyRef:
                  name: api-secrets
                  namespace: default
                  key: api-key
          - configMapKeyRef:               # Direct ConfigMap reference
              name: config-values
              namespace: default
              key: array-item-2
      else:
        literal: "default-value"
`

func TestSeedArray(t *testing.T) {
	t.Parallel()
	// As written, path "data.environment" has no leading dot: it is the literal string
	// "data.environment", never "production", so the else branch is taken.
	o := seedResolve(t, sprintf(seedArray, "data.environment"), seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{"items": "default-value"}, o.out)

	// With a JSONPath the then branch gives the documented array.
	o = seedResolve(t, sprintf(seedArray, ".data.environment"), seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, value(t, `items: ["value1", {"hostname":"backend-service","enabled":true,"port":8080}, {"apikey":"secret-api-key-value"}, "config-value-from-key"]`), o.out)
	require.Len(t, o.uses, 1)
	assert.True(t, o.uses[0].Secret, "an item came from a Secret")
}

func TestSeedConditionalEmptyBranch(t *testing.T) {
	t.Parallel()
	o := seedResolve(t, `
keep: 1
size:
  templatingValueFrom:
    conditional:
      expression:
        equal:
          left: {literal: a}
          right: {literal: b}
      then:
        literal: "50Gi"
`, seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{"keep": json1}, o.out)
}

func TestSeedSimpleConditional(t *testing.T) {
	t.Parallel()
	const in = `
storage:
  templatingValueFrom:
    conditional:
      expression:
        equal:
          left:
            objectRef:
              apiVersion: v1
              kind: ConfigMap
              name: cluster-info
              namespace: default
              path: .data.environment
          right:
            literal: "production"
      then:
        literal: "50Gi"  # Value if condition is true
      else:
        literal: "10Gi"  # Value if condition is false
`
	for env, want := range map[string]string{"production": "50Gi", "staging": "10Gi"} {
		o := seedResolve(t, in, seedReader(t, clusterInfoIn("default", env, "us-east")))
		require.NoError(t, o.err)
		assert.Equal(t, map[string]any{"storage": want}, o.out, env)
	}
	o := seedResolve(t, in, seedReader(t, ""))
	require.NoError(t, o.err)
	assert.Equal(t, map[string]any{"storage": "10Gi"}, o.out, "missing ConfigMap")
}

// clusterInfoIn is the cluster-info ConfigMap of the conditional examples.
func clusterInfoIn(ns, env, region string) string {
	return sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-info, namespace: %s}\ndata: {environment: %s, region: %s}\n",
		ns, env, region)
}

func TestSeedAdvancedConditional(t *testing.T) {
	t.Parallel()
	const intended = `
replicas:
  templatingValueFrom:
    conditional:
      expression:
        and:
          - equal:
              left:
                objectRef:
                  apiVersion: v1
                  kind: ConfigMap
                  name: cluster-info
                  path: .data.environment
              right:
                literal: "production"
          - notEqual:
              equal:
                left:
                  objectRef:
                    apiVersion: v1
                    kind: ConfigMap
                    name: cluster-info
                    path: .data.region
                right:
                  literal: "dev-region"
      then:
        literal: "3"  # replicas value for production in non-dev regions
      else:
        literal: "1"  # replicas value for other environments
`
	const asWritten = `
replicas:
  templatingValueFrom:
  conditional:
    expression:
      and:
        - equal:
            left: {objectRef: {apiVersion: v1, kind: ConfigMap, name: cluster-info, path: .data.environment}}
            right: {literal: "production"}
    then:
      literal: "3"
    else:
      literal: "1"
`
	const fixed = `
replicas:
  templatingValueFrom:
    conditional:
      expression:
        and:
          - equal:
              left: {objectRef: {apiVersion: v1, kind: ConfigMap, name: cluster-info, path: .data.environment}}
              right: {literal: "production"}
          - notEqual:
              left: {objectRef: {apiVersion: v1, kind: ConfigMap, name: cluster-info, path: .data.region}}
              right: {literal: "dev-region"}
      then: {literal: "3"}
      else: {literal: "1"}
`
	for _, tc := range []struct {
		name, in, env, region, want string
	}{
		// notEqual's nested "equal" is an unknown key: left and right are absent, "" != ""
		// is false, so the and is false whatever the ConfigMap says.
		{"nested equal inside notEqual is ignored: production, us-east", intended, "production", "us-east", `replicas: "1"`},
		{"nested equal inside notEqual is ignored: production, dev-region", intended, "production", "dev-region", `replicas: "1"`},
		{"as written: the field is removed", asWritten, "production", "us-east", `{}`},
		{"well-formed notEqual: production, us-east", fixed, "production", "us-east", `replicas: "3"`},
		{"well-formed notEqual: production, dev-region", fixed, "production", "dev-region", `replicas: "1"`},
		{"well-formed notEqual: staging", fixed, "staging", "us-east", `replicas: "1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := seedResolve(t, tc.in, seedReader(t, clusterInfoIn("service-ns", tc.env, tc.region)))
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

func TestSeedQuantityComparisons(t *testing.T) {
	t.Parallel()
	const pvc = `
policy:
  templatingValueFrom:
    conditional:
      expression:
        greaterThan:
          left:
            objectRef:
              apiVersion: v1
              kind: PersistentVolumeClaim
              name: data-pvc
              path: .spec.resources.requests.storage
          right:
            literal: "10Gi"
      then:
        literal: "LargeVolumePolicy"
      else:
        literal: "StandardVolumePolicy"
`
	const node = `
memory:
  templatingValueFrom:
    conditional:
      expression:
        greaterThan:
          left:
            objectRef:
              apiVersion: v1
              kind: Node
              name: worker-1
              path: .status.allocatable.memory
          right:
            literal: "16Gi"
      then:
        literal: "8Gi"  # Higher memory limit for nodes with >16Gi
      else:
        literal: "4Gi"  # Lower memory limit for smaller nodes
`
	const nodeAsWritten = `
memory:
  templatingValueFrom:
  conditional:
    expression:
      greaterThan:
        left: {objectRef: {apiVersion: v1, kind: Node, name: worker-1, path: .status.allocatable.memory}}
        right: {literal: "16Gi"}
    then: {literal: "8Gi"}
    else: {literal: "4Gi"}
`
	pvcObj := func(size string) string {
		return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data-pvc, namespace: service-ns}\nspec: {resources: {requests: {storage: " + size + "}}}\n"
	}
	nodeObj := func(mem string) string {
		return "apiVersion: v1\nkind: Node\nmetadata: {name: worker-1}\nstatus: {allocatable: {memory: " + mem + "}}\n"
	}
	for _, tc := range []struct{ name, in, objects, want string }{
		{"PVC 20Gi > 10Gi", pvc, pvcObj("20Gi"), `policy: LargeVolumePolicy`},
		{"PVC 10240Mi is not > 10Gi", pvc, pvcObj("10240Mi"), `policy: StandardVolumePolicy`},
		{"PVC 5Gi", pvc, pvcObj("5Gi"), `policy: StandardVolumePolicy`},
		{"PVC missing: empty string is not > 10Gi", pvc, "", `policy: StandardVolumePolicy`},
		{"node 32Gi > 16Gi", node, nodeObj("32Gi"), `memory: 8Gi`},
		{"node 16384Mi == 16Gi", node, nodeObj("16384Mi"), `memory: 4Gi`},
		{"node 16Gi in Ki, plus one", node, nodeObj("16777217Ki"), `memory: 8Gi`},
		{"node example as written: the field is removed", nodeAsWritten, nodeObj("32Gi"), `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := seedResolve(t, tc.in, seedReader(t, tc.objects))
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

func TestSeedNumericAndStringComparisons(t *testing.T) {
	t.Parallel()
	cmp := func(op, l, r string) string {
		return sprintf(`v: {templatingValueFrom: {conditional: {expression: {%s: {left: {literal: %s}, right: {literal: %s}}}, then: {literal: "yes"}, else: {literal: "no"}}}}`, op, l, r)
	}
	for _, tc := range []struct{ name, in, want, err string }{
		{"5 > 3 with YAML numbers: literal must be a string, the template fails", cmp("greaterThan", "5", "3"), "", "cannot unmarshal number"},
		{`"5" > "3"`, cmp("greaterThan", `"5"`, `"3"`), `v: "yes"`, ""},
		{`"10Gi" > "5Gi"`, cmp("greaterThan", `"10Gi"`, `"5Gi"`), `v: "yes"`, ""},
		{`"500m" < "1"`, cmp("lessThan", `"500m"`, `"1"`), `v: "yes"`, ""},
		{`"abc" < "xyz"`, cmp("lessThan", `"abc"`, `"xyz"`), `v: "yes"`, ""},
		{`"apple" > "banana" is false`, cmp("greaterThan", `"apple"`, `"banana"`), `v: "no"`, ""},
		{`lessThan is left < right`, cmp("lessThan", `"2"`, `"10"`), `v: "yes"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := seedResolve(t, tc.in, seedReader(t, ""))
			if tc.err != "" {
				require.Error(t, o.err)
				assert.Contains(t, o.err.Error(), tc.err)
				return
			}
			require.NoError(t, o.err)
			assert.Equal(t, value(t, tc.want), o.out)
		})
	}
}

var sprintf = fmt.Sprintf

const json1 = json.Number("1")
