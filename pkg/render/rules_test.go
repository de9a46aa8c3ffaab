package render_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Rule tests: one rule family, each case a few lines of inline YAML and what the render does
// with them, in the manner of kustomize's krusty tests. Golden folders (golden_test.go) keep
// the real configurations; these keep the rules readable one by one.

// requestOf is an OperandRegistry with one operator, its OperandConfig service with the
// given resources, and a request for it: the smallest input whose resources ODLM renders.
func requestOf(resources string) string {
	return `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: green, packageName: kube-green, channel: alpha, sourceName: community-operators, sourceNamespace: openshift-marketplace}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandConfig
metadata: {name: common-service, namespace: cs}
spec:
  services:
  - name: green
    resources:
` + resources + `
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: team, namespace: cs}
spec:
  requests:
  - registry: common-service
    operands:
    - name: green
`
}

// renderInline renders inline YAML documents with opts.
func renderInline(t *testing.T, docs string, opts render.Options) render.Output {
	t.Helper()
	objs, err := manifest.Decode("inputs.yaml", []byte(docs))
	require.NoError(t, err)
	return render.Render(render.Inputs{Objects: objs}, opts)
}

// find returns the emitted object of a kind and name, or nil.
func find(out render.Output, kind, name string) *manifest.Object {
	for _, o := range out.Objects {
		if o.Kind() == kind && o.Name() == name && out.Generated[o] {
			return o
		}
	}
	return nil
}

// messages are the results' messages, with their severity.
func messages(out render.Output) string {
	var b strings.Builder
	for _, r := range out.Results {
		b.WriteString(string(r.Severity) + ": " + r.Message + "\n")
	}
	return b.String()
}

// TestOperandConfigResources: ODLM creates a resource with its label, and updates one that
// exists only when it carries the label (or the resource adopts it with its labels) and force
// is not false (docs/semantics.md, OperandConfig resources).
func TestOperandConfigResources(t *testing.T) {
	t.Parallel()
	const resource = `    - apiVersion: v1
      kind: ConfigMap
      name: settings
      namespace: cs
`
	for _, tc := range []struct {
		name, resource, existing string
		// data is the rendered object's data.mode, "" for no rendered object
		data string
		says string
	}{
		{name: "created with ODLM's label", resource: resource + `      data: {data: {mode: fast}}`, data: "fast"},
		{name: "an existing object without the label is left alone",
			resource: resource + `      data: {data: {mode: fast}}`,
			existing: `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: cs}, data: {mode: slow}}`,
			says:     "exists among the inputs without ODLM's label: ODLM leaves it unchanged"},
		{name: "an existing labelled object is updated",
			resource: resource + `      data: {data: {mode: fast}}`,
			existing: `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: cs, labels: {operator.ibm.com/opreq-control: "true"}}, data: {mode: slow}}`,
			data:     "fast"},
		{name: "force false leaves a labelled object alone",
			resource: resource + "      force: false\n" + `      data: {data: {mode: fast}}`,
			existing: `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: cs, labels: {operator.ibm.com/opreq-control: "true"}}, data: {mode: slow}}`,
			says:     "force is false: ODLM leaves it unchanged"},
		{name: "the resource's labels adopt an unlabelled object",
			resource: resource + "      labels: {operator.ibm.com/opreq-control: \"true\"}\n" + `      data: {data: {mode: fast}}`,
			existing: `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: cs}, data: {mode: slow}}`,
			data:     "fast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := requestOf(tc.resource)
			if tc.existing != "" {
				docs += "---\n" + tc.existing + "\n"
			}
			out := renderInline(t, docs, render.Options{})
			require.False(t, out.Results.HasErrors(), messages(out))
			obj := find(out, "ConfigMap", "settings")
			if tc.data == "" {
				assert.Nil(t, obj, "nothing rendered")
			} else {
				require.NotNil(t, obj, messages(out))
				assert.Equal(t, tc.data, obj.String("data", "mode"))
				assert.Equal(t, "true", obj.Labels()["operator.ibm.com/opreq-control"])
			}
			if tc.says != "" {
				assert.Contains(t, messages(out), tc.says)
			}
		})
	}
}

// TestInstallNamespace: the Subscription ODLM creates is named after the package, in the
// install namespace: openshift-operators for installMode cluster, else the entry's namespace,
// which defaults to the registry's; installMode no-op creates none, and neither does a request
// from another namespace for an operator of the default scope, private (docs/semantics.md,
// Defaults; Subscriptions).
func TestInstallNamespace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, entry string
		namespace   string // of the Subscription; "" for none
	}{
		{"the registry's namespace by default", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm, scope: public}`, "cs"},
		{"the entry's namespace", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm, scope: public, namespace: green}`, "green"},
		{"cluster mode wins over the entry's namespace", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm, scope: public, namespace: green, installMode: cluster}`, "openshift-operators"},
		{"another mode acts as namespace", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm, scope: public, namespace: green, installMode: odd}`, "green"},
		{"no-op creates none", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm, scope: public, installMode: no-op}`, ""},
		{"a private operator is not installed for another namespace's request", `{name: green, packageName: kube-green, channel: alpha, sourceName: cat, sourceNamespace: olm}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := renderInline(t, `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - `+tc.entry+`
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: team, namespace: apps}
spec:
  requests:
  - registry: common-service
    registryNamespace: cs
    operands:
    - name: green
`, render.Options{})
			require.False(t, out.Results.HasErrors(), messages(out))
			sub := find(out, "Subscription", "kube-green")
			if tc.namespace == "" {
				assert.Nil(t, sub, messages(out))
				return
			}
			require.NotNil(t, sub, messages(out))
			assert.Equal(t, tc.namespace, sub.Namespace())
			assert.Equal(t, "kube-green", sub.String("spec", "name"))
			assert.Equal(t, "alpha", sub.String("spec", "channel"))
			assert.Equal(t, "true", sub.Annotations()["cs.common-service/registry"])
			assert.Equal(t, "alpha", sub.Annotations()["apps.team.green/request"])
			assert.Equal(t, tc.namespace, sub.Annotations()["apps.team.green/operatorNamespace"])
		})
	}
}

// TestBindInfoCopies: which Secret an OperandBindInfo copies into a requester's namespace,
// under which name (docs/semantics.md, OperandBindInfo): public keys copy to
// <bind info>-<source> unless the request names a target; private keys only to a request in
// the registry's namespace, protected ones only under a name the request gives; a key that
// starts with none of the three is ignored with a warning.
func TestBindInfoCopies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, key, requestNamespace, requestBindings string
		copied                                       string // the copy's namespace/name, "" for none
		says                                         string
	}{
		{name: "public, default name", key: "public", requestNamespace: "apps", copied: "apps/db-bindinfo-db-credentials"},
		{name: "public, the request's name", key: "public", requestNamespace: "apps", requestBindings: "{public: {secret: my-db}}", copied: "apps/my-db"},
		{name: "private, another namespace", key: "private", requestNamespace: "apps", requestBindings: "{private: {secret: my-db}}"},
		{name: "private, the registry's namespace", key: "private", requestNamespace: "cs", requestBindings: "{private: {secret: my-db}}", copied: "cs/my-db"},
		{name: "protected without a name", key: "protected", requestNamespace: "apps"},
		{name: "protected, the request's name", key: "protected", requestNamespace: "apps", requestBindings: "{protected: {secret: my-db}}", copied: "apps/my-db"},
		{name: "another key", key: "secret", requestNamespace: "apps", says: "ignored: ODLM only copies bindings whose key starts with public, private or protected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bindings := ""
			if tc.requestBindings != "" {
				bindings = "\n      bindings: " + tc.requestBindings
			}
			out := renderInline(t, `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: db, packageName: db-operator, channel: stable, scope: public, sourceName: cat, sourceNamespace: olm}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandBindInfo
metadata: {name: db-bindinfo, namespace: cs}
spec:
  operand: db
  registry: common-service
  bindings:
    `+tc.key+`: {secret: db-credentials}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: app, namespace: `+tc.requestNamespace+`}
spec:
  requests:
  - registry: common-service
    registryNamespace: cs
    operands:
    - name: db`+bindings+`
---
apiVersion: v1
kind: Secret
metadata: {name: db-credentials, namespace: cs, labels: {app: db}}
data: {password: czNjcjN0}
`, render.Options{})
			require.False(t, out.Results.HasErrors(), messages(out))
			var copies []string
			for _, o := range out.Objects {
				if o.Kind() == "Secret" && out.Generated[o] {
					copies = append(copies, o.Namespace()+"/"+o.Name())
					assert.Equal(t, "copy", o.Labels()["operator.ibm.com/managedBy-opbi"])
					assert.Equal(t, "db", o.Labels()["app"], "the source's labels")
					assert.Equal(t, "czNjcjN0", o.String("data", "password"))
				}
			}
			if tc.copied == "" {
				assert.Empty(t, copies, messages(out))
			} else {
				assert.Equal(t, []string{tc.copied}, copies, messages(out))
			}
			if tc.says != "" {
				assert.Contains(t, messages(out), tc.says)
			}
		})
	}
}
