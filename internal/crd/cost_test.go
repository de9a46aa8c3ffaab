package crd_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
	"github.com/odlm-render/odlm-render/internal/crd/definition"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// gadgetCRD is a CRD whose spec schema is the %s.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: %s
`

// costCases are CRDs whose CEL rules the API server accepts or refuses when it reads them;
// refused are parts of the refusal.
var costCases = []struct {
	name, spec string
	refused    []string
}{
	{"a cheap rule", `{type: object, properties: {name: {type: string, maxLength: 10}}, x-kubernetes-validations: [{rule: "self.name != 'x'"}]}`, nil},
	{"a quadratic rule on an unbounded list",
		`{type: object, properties: {names: {type: array, items: {type: string}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]}}}`,
		[]string{"properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"}},
	{"a rule run for every item of unbounded lists",
		`{type: object, properties: {rows: {type: array, items: {type: array, items: {type: string, x-kubernetes-validations: [{rule: "self.matches('^[a-z]+$')"}]}}}}}`,
		[]string{"items.items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget"}},
	{"the same rule under maxItems and maxLength",
		`{type: object, properties: {rows: {type: array, maxItems: 10, items: {type: array, maxItems: 10, items: {type: string, maxLength: 64, x-kubernetes-validations: [{rule: "self.matches('^[a-z]+$')"}]}}}}}`, nil},
	{"a rule just over its limit",
		`{type: object, properties: {a: {type: array, maxItems: 1000, items: {type: string, maxLength: 20000}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}}}`,
		[]string{"estimated rule cost exceeds budget by factor of 1.6x"}},
	{"a bounded map", `{type: object, additionalProperties: {type: string, maxLength: 100}, maxProperties: 50, x-kubernetes-validations: [{rule: "self.all(k, self[k].startsWith(k))"}]}`, nil},
	{"rules each under their limit, over the CRD's together", `MANYCHEAP`,
		[]string{"openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget"}},
	{"a costly messageExpression",
		`{type: object, properties: {a: {type: array, items: {type: string}}}, x-kubernetes-validations: [{rule: "self.a.size() < 5", messageExpression: "string(self.a.all(x, self.a.all(y, x == y)))"}]}`,
		[]string{"x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget"}},
	{"a rule that does not compile", `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.nosuch == 1"}]}`,
		[]string{"x-kubernetes-validations[0].rule: Invalid value: ", "compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'"}},
}

// serverRuleProblems are what the API server's own CRD validation (linked in this test only)
// says of a CRD's rules, with fields relative to the schema as CheckRules names them.
func serverRuleProblems(t *testing.T, m map[string]any) []string {
	t.Helper()
	problems, err := definition.Validate(m)
	require.NoError(t, err)
	var out []string
	for _, p := range problems {
		_, rel, ok := strings.Cut(p.Field, ".schema.")
		if !ok {
			rel = strings.TrimPrefix(p.Field, "spec.validation.")
		}
		out = append(out, rel+": "+p.Reason)
	}
	slices.Sort(out)
	return out
}

func ourRuleProblems(t *testing.T, d *crd.Definition) []string {
	t.Helper()
	err := d.CheckRules()
	if err == nil {
		return nil
	}
	var refused *crd.RulesRefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	var out []string
	for _, p := range refused.Problems {
		out = append(out, p.String())
	}
	slices.Sort(out)
	return out
}

// TestRuleCostAsTheAPIServerReadsACRD checks CheckRules against the API server's own CRD
// validation and a real kube-apiserver creating the CRD: what one refuses, all refuse, in the
// same words; and an object of a refused CRD is never validated (its rules never run).
func TestRuleCostAsTheAPIServerReadsACRD(t *testing.T) {
	c := testcluster.Start(t)
	for _, tc := range costCases {
		t.Run(tc.name, func(t *testing.T) {
			m := obj(t, fmt.Sprintf(gadgetCRD, strings.ReplaceAll(tc.spec, "MANYCHEAP", manyCheap)))
			d, err := crd.Parse(m)
			require.NoError(t, err)
			ours := ourRuleProblems(t, d)
			assert.Equal(t, serverRuleProblems(t, m), ours, "the server's code says the same")
			serverErr := c.DryRunCreate(m)
			_, checkErr := d.Check(obj(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ns}\nspec: {}"))
			if tc.refused == nil {
				assert.Empty(t, ours)
				require.NoError(t, serverErr, "the API server creates it")
				require.NoError(t, checkErr)
				return
			}
			require.Error(t, serverErr, "the API server refuses it")
			require.Error(t, checkErr, "objects of it are refused")
			for _, part := range tc.refused {
				assert.Contains(t, strings.Join(ours, "\n"), part)
				assert.Contains(t, serverErr.Error(), part)
				assert.Contains(t, checkErr.Error(), part)
			}
		})
	}
}

// TestRealCRDRulesPass reads every real CRD with CEL rules the reference data has: the
// server's code and CheckRules accept them all.
func TestRealCRDRulesPass(t *testing.T) {
	root, err := refdata.Root()
	if err != nil {
		refdata.Skip(t, err)
	}
	var n int
	require.NoError(t, filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), "x-kubernetes-validations") || !strings.Contains(string(data), "kind: CustomResourceDefinition") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, doc := range strings.Split(string(data), "\n---") {
			var m map[string]any
			if yaml.Unmarshal([]byte(doc), &m) != nil || m["kind"] != "CustomResourceDefinition" || !strings.Contains(doc, "x-kubernetes-validations") {
				continue
			}
			t.Run(fmt.Sprintf("%s#%d", rel, i), func(t *testing.T) {
				d, err := crd.Parse(m)
				require.NoError(t, err)
				assert.Empty(t, ourRuleProblems(t, d))
				assert.Empty(t, serverRuleProblems(t, m))
			})
			n++
		}
		return nil
	}))
	assert.Greater(t, n, 10, "the reference data has CRDs with CEL rules")
	t.Logf("%d real CRDs with CEL rules", n)
}

// manyCheap is a spec of 14 lists whose rules cost about 8M each, each a little less than the
// one before (the limit is 10M a rule, 100M a CRD; the server names the four costliest).
const manyCheap = `{type: object, properties: {p00: {type: array, maxItems: 1000, items: {type: string, maxLength: 10000}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p01: {type: array, maxItems: 1000, items: {type: string, maxLength: 9950}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p02: {type: array, maxItems: 1000, items: {type: string, maxLength: 9900}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p03: {type: array, maxItems: 1000, items: {type: string, maxLength: 9850}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p04: {type: array, maxItems: 1000, items: {type: string, maxLength: 9800}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p05: {type: array, maxItems: 1000, items: {type: string, maxLength: 9750}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p06: {type: array, maxItems: 1000, items: {type: string, maxLength: 9700}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p07: {type: array, maxItems: 1000, items: {type: string, maxLength: 9650}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p08: {type: array, maxItems: 1000, items: {type: string, maxLength: 9600}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p09: {type: array, maxItems: 1000, items: {type: string, maxLength: 9550}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p10: {type: array, maxItems: 1000, items: {type: string, maxLength: 9500}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p11: {type: array, maxItems: 1000, items: {type: string, maxLength: 9450}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p12: {type: array, maxItems: 1000, items: {type: string, maxLength: 9400}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}, p13: {type: array, maxItems: 1000, items: {type: string, maxLength: 9350}, x-kubernetes-validations: [{rule: "self.all(x, x.matches('^[a-z]+$'))"}]}}}`

// TestRuntimeCostIsBoundedAsTheServerBoundsIt creates a CRD whose rule the server accepts
// (estimated under its limit of 10M) but that costs more than one call may (1M) on a large
// object: Check stops the rule where the server does, and says what it says.
func TestRuntimeCostIsBoundedAsTheServerBoundsIt(t *testing.T) {
	c := testcluster.Start(t)
	text := fmt.Sprintf(gadgetCRD, `{type: object, properties: {a: {type: array, maxItems: 1000, items: {type: string, maxLength: 5}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]}}}`)
	d, err := crd.Parse(obj(t, text))
	require.NoError(t, err)
	require.NoError(t, d.CheckRules())
	c.Apply(t, text)
	items := make([]any, 1000)
	for i := range items {
		items[i] = "abcde"
	}
	gadget := map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": c.Namespace(t)}, "spec": map[string]any{"a": items}}
	res, err := d.Check(gadget)
	require.NoError(t, err)
	require.Len(t, res.Problems, 1)
	serverErr := c.DryRunCreate(gadget)
	require.Error(t, serverErr)
	assert.Contains(t, serverErr.Error(), res.Problems[0].Field)
	_, reason, _ := strings.Cut(res.Problems[0].Reason, ": ")
	assert.Contains(t, serverErr.Error(), reason)
	t.Log(res.Problems[0])
}
