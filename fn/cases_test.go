package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// TestGoldenCasesThroughTheFunction runs every engine golden case as a ResourceList: the
// output items (without the path annotations the function adds) must be the expected
// objects, and an error case must fail with every expected error among the results.
func TestGoldenCasesThroughTheFunction(t *testing.T) {
	for _, c := range golden.Cases(t, "../testdata/render") {
		t.Run(c.Name(), func(t *testing.T) {
			dir, err := filepath.Abs(c.Dir)
			require.NoError(t, err)
			c.Dir = dir // the test changes into the inputs' folder
			// the function runs where the case's inputs are, as kpt runs it where the package
			// is: results find their lines in the files the path annotations name
			catalogs, err := filepath.Abs(filepath.Join(c.Dir, "..", "..", "catalogs"))
			require.NoError(t, err)
			fc := functionConfig(t, c, catalogs)
			pkg := casePackage(t, c)
			rl := resourceListOf(t, []string{pkg}, fc)
			t.Chdir(pkg)
			out, err := execute(t, rl)
			// the results, exactly: every error, warning and info line of the case, in order
			got := resultLines(t, out)
			for i, l := range got {
				got[i] = golden.Relative(l, c.Dir) // a catalog file a result names, as the CLI's goldens write it
			}
			assert.Equal(t, normalizedLines(c.ResultLines(t)), normalizedLines(got))
			if len(c.ExpectedResults(t, "error")) > 0 {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.ExpectedYAML(t), withoutFileAnnotations(t, out, c.KeepInputs))
		})
	}
}

// casePackage is the folder the function runs in for case c, as kpt runs it in a package:
// the case's input/ folder; or, when the case has other inputs (reference data, outside the
// repository), a temporary folder laid out as the case's: input/, each other input at its
// entry's path ("reference:PATH" at reference/PATH). Every item's path annotation then names
// a file below the working directory (the function reads the lines of results only there),
// and the files sort as the CLI's paths do (results are ordered by file).
func casePackage(t *testing.T, c golden.Case) string {
	t.Helper()
	if len(c.Inputs) == 0 {
		return c.Input()
	}
	pkg := t.TempDir()
	entries := append([]string{"input"}, c.Inputs...)
	for i, p := range c.InputPaths(t) {
		dst := filepath.Join(pkg, filepath.FromSlash(strings.Replace(entries[i], refdata.Prefix, "reference/", 1)))
		p, err := filepath.EvalSymlinks(p) // a case may share another's inputs
		require.NoError(t, err)
		st, err := os.Stat(p)
		require.NoError(t, err)
		if st.IsDir() {
			require.NoError(t, os.CopyFS(dst, os.DirFS(p)))
			continue
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	return pkg
}

// location is a result line's file location: the CLI names the case's input/ folder and a
// line, the function the path kpt or kustomize gave the item (no line inside a ResourceList
// for catalog blobs); the expected lines name a file of the reference folder
// "reference:PATH" (golden.Relative).
var location = regexp.MustCompile(`^(\[\w+\] )(?:reference:)?[\w./-]+\.(?:yaml|yml|json)(?::\d+)?(?: \(document \d+\))?: `)

// normalizedLines removes file locations, at the start of a line and inside messages.
func normalizedLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = location.ReplaceAllString(l, "$1")
		out = append(out, catalogLocation.ReplaceAllString(l, "<blob>"))
	}
	return out
}

// resultLines are a ResourceList's results as the CLI prints them: "[severity] " and the
// result's text.
func resultLines(t *testing.T, rl string) []string {
	t.Helper()
	var list struct {
		Results []struct {
			Message     string `yaml:"message"`
			Severity    string `yaml:"severity"`
			ResourceRef *struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
				Namespace  string `yaml:"namespace"`
			} `yaml:"resourceRef"`
			Field struct {
				Path string `yaml:"path"`
			} `yaml:"field"`
		} `yaml:"results"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(rl), &list))
	var out []string
	for _, r := range list.Results {
		d := diag.Result{Severity: diag.Severity(r.Severity), Message: r.Message, Field: r.Field.Path}
		if r.ResourceRef != nil {
			d.Object = &manifest.Ref{APIVersion: r.ResourceRef.APIVersion, Kind: r.ResourceRef.Kind, Name: r.ResourceRef.Name, Namespace: r.ResourceRef.Namespace}
		}
		out = append(out, "["+r.Severity+"] "+d.String())
	}
	return out
}

var catalogLocation = regexp.MustCompile(`(?:reference:)?[\w./-]+(:\d+)? \(document \d+\)`)

// resultMessages decodes the results of a ResourceList, with case folder paths removed.
func resultMessages(t *testing.T, rl string) []string {
	t.Helper()
	var list struct {
		Results []struct {
			Message string `yaml:"message"`
		} `yaml:"results"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(rl), &list))
	var out []string
	for _, r := range list.Results {
		out = append(out, r.Message)
	}
	return out
}

// withoutFileAnnotations returns the output items as the engine's YAML stream: path and
// index annotations removed, catalog blobs (kept with keepInputs) left out.
func withoutFileAnnotations(t *testing.T, rl string, keepInputs bool) string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(rl), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	var objs []*manifest.Object
	for _, n := range nodes {
		//nolint:staticcheck // SA1019: the legacy annotations, which kpt may still write, are cleared too
		for _, a := range []string{kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation, kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} {
			require.NoError(t, n.PipeE(yaml.ClearAnnotation(a)))
		}
		if len(n.GetAnnotations()) == 0 {
			_ = n.PipeE(yaml.Lookup("metadata"), yaml.Clear("annotations"))
		}
		v, err := manifest.NodeValue(n.YNode())
		require.NoError(t, err)
		obj := &manifest.Object{Map: v.(map[string]any)}
		if keepInputs && obj.Kind() == "" {
			continue
		}
		if inputs.IsLocal(obj) {
			continue // returned untouched by the function; the CLI leaves them out
		}
		objs = append(objs, obj)
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, objs))
	return buf.String()
}

// TestResultsNeverCarrySecretValues runs the bind-info and templating cases with every
// diagnostic on and checks the ResourceList results (not the items) for the planted values.
func TestResultsNeverCarrySecretValues(t *testing.T) {
	t.Parallel()
	for _, c := range golden.Cases(t, "../testdata/render") {
		if (!strings.HasPrefix(c.Name(), "bindinfo-") && !strings.HasPrefix(c.Name(), "template-")) || !c.Runnable() {
			continue // not about Secrets, or its inputs are partly reference data, absent here
		}
		for _, mode := range []string{"copy", "external-secrets"} {
			fc := "apiVersion: odlm-render.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: render}\nspec:\n  explain: true\n  bindinfoSecrets: " + mode + "\n"
			fc += "  catalogs: [" + strings.Join(c.CatalogPaths(t, "../testdata/catalogs"), ", ") + "]\n"
			out, _ := execute(t, resourceListOf(t, []string{casePackage(t, c)}, fc))
			results := strings.Join(resultMessages(t, out), "\n")
			for _, planted := range []string{"s3cr3t", "czNjcjN0", "do-not-leak-me", "ZG8tbm90LWxlYWstbWU="} {
				assert.NotContains(t, results, planted, "%s (%s)", c.Name(), mode)
			}
		}
	}
}

// functionConfig is the RenderConfig of a golden case (as JSON, which is YAML): its catalogs
// (under catalogsRoot) and snapshots, and every option it sets under its functionConfig name.
func functionConfig(t *testing.T, c golden.Case, catalogsRoot string) string {
	t.Helper()
	b, err := json.Marshal(c.Options)
	require.NoError(t, err)
	spec := map[string]any{}
	require.NoError(t, json.Unmarshal(b, &spec))
	spec["catalogs"] = c.CatalogPaths(t, catalogsRoot)
	if len(c.Snapshots) > 0 {
		spec["snapshots"] = c.SnapshotPaths(t)
	}
	b, err = json.Marshal(map[string]any{"apiVersion": ConfigAPIVersion, "kind": ConfigKind, "metadata": map[string]any{"name": "render"}, "spec": spec})
	require.NoError(t, err)
	return string(b) + "\n"
}
