package cli

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

const (
	collectionExample = "../../examples/collection"
	collectionData    = "../../testdata/collection"
)

// collectionCLI runs the command line in-process through Main.
func collectionCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, "", args...)
}

func TestCollectionExampleMatchesGolden(t *testing.T) {
	t.Parallel()
	code, out, stderr := collectionCLI(t, "collection", collectionExample)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stderr)
	want := collectionData + "/example.yaml"
	if *golden.Update {
		require.NoError(t, os.WriteFile(want, []byte(out), 0o644))
	}
	b, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, string(b), out)
}

func TestCollectionJSONAndNamespace(t *testing.T) {
	t.Parallel()
	code, out, stderr := collectionCLI(t, "collection", collectionExample, "-o", "json", "-n", "zos")
	require.Equal(t, ExitOK, code, stderr)
	var list struct {
		Kind  string
		Items []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, 4)
	role := list.Items[3]
	assert.Equal(t, "Role", role["kind"])
	assert.Equal(t, "zos", role["metadata"].(map[string]any)["namespace"])
}

// TestCollectionErrorsExitOne: errors print as file:line: field: message on stderr, nothing
// goes to stdout, and the exit status is 1.
func TestCollectionErrorsExitOne(t *testing.T) {
	t.Parallel()
	dir := collectionData + "/spec-violations/input"
	code, out, stderr := collectionCLI(t, "collection", dir)
	assert.Equal(t, ExitErrors, code)
	assert.Empty(t, out)
	for _, line := range []string{
		dir + `/operator-config.yml:1: domain: "Acme_Corp" is not a DNS subdomain name (RFC 1123)`,
		dir + `/operator-config.yml:8: resources[0].kind: "widget" is not PascalCase`,
		dir + `/playbooks/run.yml:2: [0].hosts: "localhost" is not all: the playbook MUST use hosts: all`,
		dir + `/operator-config.yml:17: warning: resources[1].vars[1].name: no playbook, role or template of the collection uses variable "count"`,
	} {
		assert.Contains(t, stderr, line)
	}
	// warnings alone do not fail
	code, out, stderr = collectionCLI(t, "collection", collectionData+"/warnings/input")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, stderr, `warning: provider: unknown field`)
	assert.Contains(t, out, "kind: CustomResourceDefinition")
}

func TestCollectionUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"collection"},
		{"collection", collectionExample, collectionExample},
		{"collection", collectionExample, "-o", "xml"},
		{"collection", collectionExample, "--no-such-flag"},
	} {
		code, out, stderr := collectionCLI(t, args...)
		assert.Equal(t, ExitUsage, code, "%v: %s", args, stderr)
		assert.Empty(t, out)
	}
	code, out, stderr := collectionCLI(t, "collection", collectionData+"/does-not-exist")
	assert.Equal(t, ExitErrors, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "does-not-exist")
}

// TestCollectionCRDsAcceptedByAPIServer applies the rendered CRDs, ClusterRoles and Roles to
// a real kube-apiserver (CRDs must become Established), then dry-run creates one instance
// of every CRD: a valid one is accepted, one with a value outside an enum, one of the wrong
// type and one without a required field are refused.
func TestCollectionCRDsAcceptedByAPIServer(t *testing.T) {
	t.Parallel()
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	enumChecks := 0
	for _, dir := range []string{
		collectionExample,
		collectionData + "/minimal/input",
		collectionData + "/all-var-types/input",
		collectionData + "/warnings/input",
	} {
		code, out, stderr := collectionCLI(t, "collection", dir, "-n", ns)
		require.Equal(t, ExitOK, code, stderr)
		c.Apply(t, out)
		objs, err := manifest.Decode(dir, []byte(out))
		require.NoError(t, err)
		for _, crd := range objs {
			if crd.Kind() != "CustomResourceDefinition" {
				continue
			}
			group := crd.String("spec", "group")
			kind := crd.String("spec", "names", "kind")
			versions := manifest.Get(crd.Map, "spec", "versions").([]any)
			version := versions[0].(map[string]any)
			specSchema := manifest.Get(version, "schema", "openAPIV3Schema", "properties", "spec").(map[string]any)
			props, _ := specSchema["properties"].(map[string]any)
			required, _ := specSchema["required"].([]any)
			instance := func(spec map[string]any) map[string]any {
				return map[string]any{
					"apiVersion": group + "/" + version["name"].(string),
					"kind":       kind,
					"metadata":   map[string]any{"name": "sample", "namespace": ns},
					"spec":       spec,
				}
			}
			valid := map[string]any{}
			for name, p := range props {
				valid[name] = sampleValue(p.(map[string]any))
			}
			require.NoError(t, c.DryRunCreate(instance(valid)), "%s: a valid %s", dir, kind)

			for name, p := range props {
				p := p.(map[string]any)
				bad := copyMap(valid)
				if _, ok := p["enum"]; ok {
					bad[name] = "not-an-option"
					err := c.DryRunCreate(instance(bad))
					require.Error(t, err, "%s %s.%s outside the enum", dir, kind, name)
					assert.Contains(t, err.Error(), "Unsupported value")
					enumChecks++
					continue
				}
				if p["type"] == "integer" || p["type"] == "boolean" || p["type"] == "number" {
					bad[name] = "a string"
					err := c.DryRunCreate(instance(bad))
					require.Error(t, err, "%s %s.%s of the wrong type", dir, kind, name)
					assert.Contains(t, err.Error(), "Invalid value")
				}
			}
			for _, r := range required {
				if _, hasDefault := props[r.(string)].(map[string]any)["default"]; hasDefault {
					continue // the API server fills it in
				}
				bad := copyMap(valid)
				delete(bad, r.(string))
				err := c.DryRunCreate(instance(bad))
				require.Error(t, err, "%s %s without %s", dir, kind, r)
				assert.Contains(t, err.Error(), "Required value")
			}
		}
	}
	assert.Greater(t, enumChecks, 3)
}

// sampleValue is a valid value for a property schema the collection renders.
func sampleValue(p map[string]any) any {
	if enum, ok := p["enum"].([]any); ok {
		return enum[len(enum)-1]
	}
	switch p["type"] {
	case "integer":
		return int64(3)
	case "number":
		return 2.5
	case "boolean":
		return true
	}
	if _, ok := p["pattern"]; ok {
		return "my-secret" // a password var: a Secret name
	}
	return "SAMPLE.VALUE"
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
