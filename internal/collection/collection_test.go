package collection_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/collection"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

const (
	casesDir   = "../../testdata/collection"
	exampleDir = "../../examples/collection"
)

// resultLines prints results with their severity and paths relative to the case folder.
func resultLines(dir string, rs diag.Results) []string {
	prefix := filepath.ToSlash(dir) + "/"
	var lines []string
	for _, r := range rs {
		r.File = strings.TrimPrefix(r.File, prefix)
		r.Message = strings.ReplaceAll(r.Message, prefix, "")
		lines = append(lines, "["+string(r.Severity)+"] "+r.String())
	}
	return lines
}

// TestCollectionGolden renders every testdata/collection/<case>/input (case.yaml may set the Role's
// namespace) and compares objects and results with expected/; `go test -update` rewrites them.
func TestCollectionGolden(t *testing.T) {
	for _, c := range golden.Cases(t, casesDir) {
		t.Run(c.Name(), func(t *testing.T) {
			out, err := collection.Render(c.Input(), collection.Options{Namespace: c.DefaultNamespace})
			require.NoError(t, err)
			objs := out.Objects
			if out.Results.HasErrors() {
				objs = nil // front doors write nothing when there are errors
			}
			files, err := golden.Files(objs, resultLines(c.Dir, out.Results))
			require.NoError(t, err)
			golden.Compare(t, filepath.Join(c.Dir, "expected"), files)
		})
	}
}

func TestCollectionExampleIsValidAndRendersTwoCRDsAndRBAC(t *testing.T) {
	out, err := collection.Render(exampleDir, collection.Options{})
	require.NoError(t, err)
	assert.Empty(t, out.Results, "the example has no errors and no warnings")
	var kinds []string
	for _, o := range out.Objects {
		kinds = append(kinds, o.Kind()+" "+o.Name())
	}
	assert.Equal(t, []string{
		"CustomResourceDefinition datasetbackups.datasets.zosutils",
		"CustomResourceDefinition datasets.datasets.zosutils",
		"ClusterRole datasets.zosutils",
		"Role datasets.zosutils",
	}, kinds)
}

func TestCollectionRenderIsDeterministic(t *testing.T) {
	var first []byte
	for i := 0; i < 5; i++ {
		out, err := collection.Render(exampleDir, collection.Options{})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, manifest.WriteYAML(&buf, out.Objects))
		if first == nil {
			first = buf.Bytes()
			continue
		}
		assert.Equal(t, string(first), buf.String())
	}
}

// TestCollectionArchiveAndConfigFileGiveTheSameOutput reads the example as a built collection
// archive (as ansible-galaxy writes it: files at the archive's root, MANIFEST.json instead of
// galaxy.yml) and through its operator-config file: same objects, same results.
func TestCollectionArchiveAndConfigFileGiveTheSameOutput(t *testing.T) {
	want, err := collection.Render(exampleDir, collection.Options{})
	require.NoError(t, err)
	wantYAML := yamlOf(t, want.Objects)

	archive := filepath.Join(t.TempDir(), "zosutils-datasets-1.0.0.tar.gz")
	writeArchive(t, archive, exampleDir, map[string]string{
		"MANIFEST.json": `{"collection_info": {"namespace": "zosutils", "name": "datasets", "version": "1.0.0"}}`,
	}, "galaxy.yml")
	got, err := collection.Render(archive, collection.Options{})
	require.NoError(t, err)
	assert.Empty(t, got.Results)
	assert.Equal(t, wantYAML, yamlOf(t, got.Objects))

	got, err = collection.Render(filepath.Join(exampleDir, "operator-config.yml"), collection.Options{})
	require.NoError(t, err)
	assert.Empty(t, got.Results)
	assert.Equal(t, wantYAML, yamlOf(t, got.Objects))

	// diagnostics inside an archive name the archive and the member
	writeArchive(t, archive, exampleDir, map[string]string{
		"MANIFEST.json":   `{"collection_info": {"namespace": "zosutils", "name": "datasets", "version": "0.9.0"}}`,
		"playbooks/x.yml": "- hosts: all\n",
	}, "galaxy.yml")
	got, err = collection.Render(archive, collection.Options{})
	require.NoError(t, err)
	require.Len(t, got.Results, 1)
	assert.Equal(t, filepath.ToSlash(archive)+"/operator-config.yml:6: warning: version: \"1.0.0\" differs from the version \"0.9.0\" of "+
		filepath.ToSlash(archive)+"/MANIFEST.json: the specification says it SHOULD be the same (a fork MAY differ)", got.Results[0].String())

	_, err = collection.Render(filepath.Join(t.TempDir(), "missing"), collection.Options{})
	assert.Error(t, err)
}

func yamlOf(t *testing.T, objs []*manifest.Object) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, objs))
	return buf.String()
}

// writeArchive writes the files of dir (but skip) and extra into a gzipped tar.
func writeArchive(t *testing.T, archive, dir string, extra map[string]string, skip ...string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, data []byte) {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, s := range skip {
			if p == s {
				return nil
			}
		}
		data, err := fs.ReadFile(os.DirFS(dir), p)
		if err != nil {
			return err
		}
		add(p, data)
		return nil
	}))
	for name, data := range extra {
		add(name, []byte(data))
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, os.WriteFile(archive, buf.Bytes(), 0o644))
}

func TestCollectionCRDVersionAndPlural(t *testing.T) {
	for in, want := range map[string]string{"1.0.0": "v1-0-0", "2.1.0-RC.1+build.7": "v2-1-0-rc-1-build-7"} {
		assert.Equal(t, want, collection.CRDVersion(in))
	}
	for in, want := range map[string]string{"ZosUserId": "zosuserids", "Policy": "policies", "Gateway": "gateways", "Address": "addresses", "Box": "boxes", "Batch": "batches", "TMDB": "tmdbs"} {
		assert.Equal(t, want, collection.Plural(in), in)
	}
}

// baseFiles is a valid collection that the rule cases below change one thing at a time.
var baseFiles = map[string]string{
	"galaxy.yml": "namespace: example\nname: widgets\nversion: 1.0.0\n",
	"operator-config.yml": `domain: example
name: widgets
version: 1.0.0
displayName: Widget Operator
description: >-
  # Widgets

  Manage widgets.
resources:
  - kind: Widget
    playbook: playbooks/run.yml
    finalizer: playbooks/delete.yml
    vars:
      - name: size
        displayName: Size
        type: string
        options: [small, large]
        default: small
      - name: count
        displayName: Count
        type: integer
        required: true
clusterRoles:
  - rules:
      - apiGroups: [""]
        resources: [nodes]
        verbs: [get]
roles:
  - rules:
      - apiGroups: [""]
        resources: [secrets]
        verbs: [get]
icon:
  - base64data: PHN2Zy8+
    mediatype: image/svg+xml
`,
	"playbooks/run.yml":              "- name: Run\n  hosts: all\n  roles: [widget]\n",
	"playbooks/delete.yml":           "- name: Delete\n  hosts: all\n  tasks: []\n",
	"roles/widget/tasks/main.yml":    "- ansible.builtin.debug:\n    msg: \"{{ size }} {{ count }} {{ secret | default('') }} {{ ratio | default(1) }} {{ enabled | default(true) }}\"\n",
	"roles/widget/defaults/main.yml": "size: small\n",
}

// ruleCase changes the base collection: each replace is old → new in file (the
// operator-config by default); files adds or replaces whole files.
type ruleCase struct {
	rule    string // the specification's words
	name    string
	replace [][2]string
	file    string
	files   map[string]string
	// want is "" for a valid collection, else a substring of an error (file:line: field: message)
	want string
}

// deleted as a files value removes the file.
const deleted = "<deleted>"

func renderCase(t *testing.T, c ruleCase) collection.Output {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range baseFiles {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	file := c.file
	if file == "" {
		file = "operator-config.yml"
	}
	for _, r := range c.replace {
		data := string(fsys[file].Data)
		require.Contains(t, data, r[0], "case %s: %s has no %q", c.name, file, r[0])
		fsys[file] = &fstest.MapFile{Data: []byte(strings.Replace(data, r[0], r[1], 1))}
	}
	for name, data := range c.files {
		if data == deleted {
			delete(fsys, name)
			continue
		}
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return collection.RenderFS(fsys, "c", collection.Options{})
}

// TestCollectionSpecificationRules has one valid and one invalid case per MUST/REQUIRED of the
// OperatorCollection specification (and per Kubernetes rule the rendered objects depend on).
func TestCollectionSpecificationRules(t *testing.T) {
	const (
		dnsDomain = `c/operator-config.yml:1: domain: `
		dnsName   = `c/operator-config.yml:2: name: `
	)
	cases := []ruleCase{
		{rule: "domain: Required", name: "domain missing", replace: [][2]string{{"domain: example\n", ""}}, want: "c/operator-config.yml:1: domain: required field is missing"},
		{rule: "domain MUST conform to DNS Subdomain naming (RFC 1123)", name: "domain with dots and dashes", replace: [][2]string{{"domain: example", "domain: my-org.example.com"}}},
		{rule: "domain MUST conform to DNS Subdomain naming (RFC 1123)", name: "domain upper case", replace: [][2]string{{"domain: example", "domain: Example"}}, want: dnsDomain + `"Example" is not a DNS subdomain name`},
		{rule: "domain MUST conform to DNS Subdomain naming (RFC 1123)", name: "domain underscore", replace: [][2]string{{"domain: example", "domain: my_org"}}, want: dnsDomain + `"my_org" is not a DNS subdomain name`},
		{rule: "domain MUST conform to DNS Subdomain naming (RFC 1123)", name: "domain too long", replace: [][2]string{{"domain: example", "domain: " + strings.Repeat("a", 254)}}, want: `is not a DNS subdomain name (RFC 1123)`},
		{rule: "domain MUST conform to DNS Subdomain naming (RFC 1123)", name: "domain not a string", replace: [][2]string{{"domain: example", "domain: 42"}}, want: dnsDomain + `must be a string, not a number (42): quote it`},
		{rule: "name: Required", name: "name missing", replace: [][2]string{{"name: widgets\n", ""}}, want: "c/operator-config.yml:1: name: required field is missing"},
		{rule: "name MUST conform to DNS Subdomain naming (RFC 1123)", name: "name with a dash", replace: [][2]string{{"name: widgets", "name: widget-ops"}}},
		{rule: "name MUST conform to DNS Subdomain naming (RFC 1123)", name: "name ends with a dash", replace: [][2]string{{"name: widgets", "name: widgets-"}}, want: dnsName + `"widgets-" is not a DNS subdomain name`},
		{rule: "name + domain form the API group (Kubernetes reserves *.k8s.io)", name: "reserved group", replace: [][2]string{{"domain: example", "domain: k8s.io"}}, want: `c/operator-config.yml:1: domain: API group "widgets.k8s.io": the API server refuses the CRD the import creates for kind Widget: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation`},
		{rule: "resources.kind: the API server's names (a list kind of at most 63 characters)", name: "kind too long", replace: [][2]string{{"kind: Widget", "kind: Waaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}, want: `resources[0].kind: "Waaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": the API server refuses the CRD the import creates for kind Waaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: spec.names.listKind: Invalid value: may have mixed case, but should otherwise match: must be no more than 63 characters`},
		{rule: "version: the API server's version names (at most 63 characters)", name: "version too long", replace: [][2]string{{"version: 1.0.0", "version: 1.0.0-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}, want: `version: "1.0.0-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (CRD version "v1-0-0-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"): the API server refuses the CRD the import creates for kind Widget: spec.version`},
		{rule: "version: Required", name: "version missing", replace: [][2]string{{"version: 1.0.0\n", ""}}, want: "c/operator-config.yml:1: version: required field is missing"},
		{rule: "version: semantic versioning compliant", name: "semver with pre-release and build", replace: [][2]string{{"version: 1.0.0", "version: 1.0.0-beta.2+exp.sha.5114f85"}}},
		{rule: "version: semantic versioning compliant", name: "two numbers", replace: [][2]string{{"version: 1.0.0", "version: \"1.0\""}}, want: `c/operator-config.yml:3: version: "1.0" is not a semantic version`},
		{rule: "version: semantic versioning compliant", name: "v prefix", replace: [][2]string{{"version: 1.0.0", "version: v1.0.0"}}, want: `c/operator-config.yml:3: version: "v1.0.0" is not a semantic version`},
		{rule: "version: semantic versioning compliant", name: "leading zero", replace: [][2]string{{"version: 1.0.0", "version: 1.02.0"}}, want: `version: "1.02.0" is not a semantic version`},
		{rule: "version: semantic versioning compliant", name: "unquoted number", replace: [][2]string{{"version: 1.0.0", "version: 1.0"}}, want: `version: must be a string, not a number (1.0): quote it`},
		{rule: "displayName: Required", name: "displayName missing", replace: [][2]string{{"displayName: Widget Operator\n", ""}}, want: "c/operator-config.yml:1: displayName: required field is missing"},
		{rule: "displayName: Required", name: "displayName empty", replace: [][2]string{{"displayName: Widget Operator", `displayName: ""`}}, want: "c/operator-config.yml:4: displayName: must not be empty"},
		{rule: "description: MUST provide a new line after headers", name: "literal block keeps line breaks", replace: [][2]string{{"description: >-\n  # Widgets\n\n  Manage", "description: |\n  # Widgets\n  Manage"}}},
		{rule: "description: MUST provide a new line after headers", name: "more-indented text keeps its line break", replace: [][2]string{{"# Widgets\n\n  Manage", "# Widgets\n    Manage"}}},
		{rule: "description: MUST provide a new line after headers", name: "folded header runs into text", replace: [][2]string{{"# Widgets\n\n  Manage", "# Widgets\n  Manage"}}, want: `c/operator-config.yml:6: description: markdown header "# Widgets" runs into the next line`},
		{rule: "description: MUST provide a new line after headers", name: "quoted header runs into text", replace: [][2]string{{"description: >-\n  # Widgets\n\n  Manage widgets.", "description: \"intro\n\n  ## Usage\n  Manage widgets.\""}}, want: `c/operator-config.yml:7: description: markdown header "## Usage" runs into the next line`},
		{rule: "description: MUST provide a new line after headers", name: "quoted header with empty line", replace: [][2]string{{"description: >-\n  # Widgets\n\n  Manage widgets.", "description: '# Widget''s\n\n  Manage widgets.'"}}},
		{rule: "resources: Required", name: "resources missing", replace: [][2]string{{"resources:", "other:"}}, want: "resources: required field is missing"},
		{rule: "An OperatorCollection MUST define at least one resource", name: "no resources", replace: [][2]string{{"resources:\n  - kind: Widget", "resources: []\nx:\n  - kind: Widget"}}, want: "c/operator-config.yml:9: resources: an OperatorCollection MUST define at least one resource"},
		{rule: "kind: Required", name: "kind missing", replace: [][2]string{{"  - kind: Widget\n    playbook", "  - playbook"}}, want: "c/operator-config.yml:10: resources[0].kind: required field is missing"},
		{rule: "kind: MUST be Pascal Case", name: "PascalCase with an acronym", replace: [][2]string{{"kind: Widget", "kind: IMSWidget2"}}},
		{rule: "kind: MUST be Pascal Case", name: "camelCase", replace: [][2]string{{"kind: Widget", "kind: someWidget"}}, want: `c/operator-config.yml:10: resources[0].kind: "someWidget" is not PascalCase`},
		{rule: "kind: MUST be Pascal Case", name: "underscore", replace: [][2]string{{"kind: Widget", "kind: Some_Widget"}}, want: `resources[0].kind: "Some_Widget" is not PascalCase`},
		{rule: "version and resources.kind MUST be unique (GVK)", name: "two kinds", files: map[string]string{}, replace: [][2]string{{"clusterRoles:", "  - kind: Gadget\n    playbook: playbooks/run.yml\nclusterRoles:"}}},
		{rule: "version and resources.kind MUST be unique (GVK)", name: "same kind twice", replace: [][2]string{{"clusterRoles:", "  - kind: Widget\n    playbook: playbooks/run.yml\nclusterRoles:"}}, want: `c/operator-config.yml:23: resources[1].kind: duplicate kind "Widget" (also resources[0])`},
		{rule: "version and resources.kind MUST be unique (GVK)", name: "kinds differing in case", replace: [][2]string{{"clusterRoles:", "  - kind: WIDGET\n    playbook: playbooks/run.yml\nclusterRoles:"}}, want: `resources[1].kind: kind "WIDGET" and resources[0].kind would both be served as "widgets"`},
		{rule: "playbook: Required", name: "playbook missing", replace: [][2]string{{"    playbook: playbooks/run.yml\n", ""}}, want: "c/operator-config.yml:10: resources[0].playbook: required field is missing"},
		{rule: "playbook: MUST be relative to the root of the collection", name: "path with ./ and a sub-folder", replace: [][2]string{{"playbook: playbooks/run.yml", "playbook: ./playbooks/../playbooks/run.yml"}}},
		{rule: "playbook: MUST be relative to the root of the collection", name: "absolute path", replace: [][2]string{{"playbook: playbooks/run.yml", "playbook: /playbooks/run.yml"}}, want: `c/operator-config.yml:11: resources[0].playbook: "/playbooks/run.yml" is not relative to the root of the collection`},
		{rule: "playbook: MUST be relative to the root of the collection", name: "leaves the collection", replace: [][2]string{{"playbook: playbooks/run.yml", "playbook: ../run.yml"}}, want: `resources[0].playbook: "../run.yml" leaves the collection`},
		{rule: "playbook: present in the collection", name: "missing playbook", replace: [][2]string{{"playbook: playbooks/run.yml", "playbook: playbooks/nope.yml"}}, want: `c/operator-config.yml:11: resources[0].playbook: "playbooks/nope.yml" is not in the collection (no file c/playbooks/nope.yml)`},
		{rule: "playbook: present in the collection", name: "a folder", replace: [][2]string{{"playbook: playbooks/run.yml", "playbook: playbooks"}}, want: `resources[0].playbook: "playbooks" is a folder, not a playbook`},
		{rule: "The playbook MUST use a hosts: all value", name: "hosts list with all", file: "playbooks/run.yml", replace: [][2]string{{"hosts: all", "hosts: [all]"}}},
		{rule: "The playbook MUST use a hosts: all value", name: "hosts localhost", file: "playbooks/run.yml", replace: [][2]string{{"hosts: all", "hosts: localhost"}}, want: `c/playbooks/run.yml:2: [0].hosts: "localhost" is not all: the playbook MUST use hosts: all`},
		{rule: "The playbook MUST use a hosts: all value", name: "no hosts", file: "playbooks/run.yml", replace: [][2]string{{"  hosts: all\n", ""}}, want: `c/playbooks/run.yml:1: [0]: the play has no hosts`},
		{rule: "The playbook MUST use a hosts: all value", name: "imported playbook", file: "playbooks/run.yml", replace: [][2]string{{"- name: Run", "- import_playbook: sub/more.yml\n- name: Run"}}, files: map[string]string{"playbooks/sub/more.yml": "- hosts: zos\n  tasks: []\n"}, want: `c/playbooks/sub/more.yml:1: [0].hosts: "zos" is not all`},
		{rule: "The playbook MUST use a hosts: all value", name: "not a playbook", file: "playbooks/run.yml", replace: [][2]string{{"- name: Run\n  hosts: all\n  roles: [widget]\n", "hosts: all\n"}}, want: `c/playbooks/run.yml:1: not a playbook (a list of plays), named by resources[0].playbook in c/operator-config.yml`},
		{rule: "finalizer: a playbook of the collection", name: "finalizer missing from the collection", replace: [][2]string{{"finalizer: playbooks/delete.yml", "finalizer: delete.yml"}}, want: `c/operator-config.yml:12: resources[0].finalizer: "delete.yml" is not in the collection`},
		{rule: "finalizer: a playbook of the collection", name: "finalizer absolute", replace: [][2]string{{"finalizer: playbooks/delete.yml", `finalizer: C:\playbooks\delete.yml`}}, want: `resources[0].finalizer: "C:\\playbooks\\delete.yml" is not relative to the root of the collection`},
		{rule: "vars[].name: Required", name: "var name missing", replace: [][2]string{{"      - name: size\n", "      - options2: []\n"}}, want: "c/operator-config.yml:14: resources[0].vars[0].name: required field is missing"},
		{rule: "vars[].name MUST conform to an existing variable of the playbook or role", name: "invalid variable name", replace: [][2]string{{"name: size", "name: widget-size"}}, want: `c/operator-config.yml:14: resources[0].vars[0].name: "widget-size" is not an Ansible variable name`},
		{rule: "vars[].name MUST conform to an existing variable of the playbook or role", name: "Python keyword", replace: [][2]string{{"name: size", "name: class"}}, want: `resources[0].vars[0].name: "class" is not an Ansible variable name`},
		{rule: "vars[].name MUST be unique (one spec field each)", name: "duplicate var", replace: [][2]string{{"name: count", "name: size"}}, want: `c/operator-config.yml:19: resources[0].vars[1].name: duplicate variable "size" (also resources[0].vars[0])`},
		{rule: "vars[].displayName: Required", name: "var displayName missing", replace: [][2]string{{"        displayName: Count\n", ""}}, want: "c/operator-config.yml:19: resources[0].vars[1].displayName: required field is missing"},
		{rule: "vars[].type: Required", name: "var type missing", replace: [][2]string{{"        type: integer\n", ""}}, want: "c/operator-config.yml:19: resources[0].vars[1].type: required field is missing"},
		{rule: "vars[].type: string, number, integer, boolean, password", name: "number", replace: [][2]string{{"type: integer", "type: number"}}},
		{rule: "vars[].type: string, number, integer, boolean, password", name: "boolean", replace: [][2]string{{"type: integer", "type: boolean"}}},
		{rule: "vars[].type: string, number, integer, boolean, password", name: "password", replace: [][2]string{{"type: integer", "type: password"}}},
		{rule: "vars[].type: string, number, integer, boolean, password", name: "float", replace: [][2]string{{"type: integer", "type: float"}}, want: `c/operator-config.yml:21: resources[0].vars[1].type: "float" is not a variable type: use one of string, number, integer, boolean, password`},
		{rule: "vars[].options: []string, with type: string", name: "options on an integer", replace: [][2]string{{"type: integer", "type: integer\n        options: [\"1\", \"2\"]"}}, want: `c/operator-config.yml:22: resources[0].vars[1].options: options (a dropdown) go with type string, not integer`},
		{rule: "vars[].options: []string, with type: string", name: "a number option", replace: [][2]string{{"options: [small, large]", "options: [small, 2]"}}, want: `c/operator-config.yml:17: resources[0].vars[0].options[1]: must be a string, not a number (2)`},
		{rule: "vars[].options: []string, with type: string", name: "no options", replace: [][2]string{{"options: [small, large]\n        default: small", "options: []"}}, want: `resources[0].vars[0].options: must list at least one option`},
		{rule: "vars[].required: boolean", name: "required yes", replace: [][2]string{{"required: true", "required: yes"}}, want: `c/operator-config.yml:22: resources[0].vars[1].required: must be true or false, not a string ("yes")`},
		{rule: "vars[].default: a value of the var's type", name: "integer default as a string", replace: [][2]string{{"required: true", "default: \"12\""}}},
		{rule: "vars[].default: a value of the var's type", name: "integer default not a number", replace: [][2]string{{"required: true", "default: twelve"}}, want: `c/operator-config.yml:22: resources[0].vars[1].default: "twelve": the API server refuses the CRD the import creates for kind Widget: spec.validation.openAPIV3Schema.properties[spec].properties[count].default: Invalid value: must be of type integer: "string"`},
		{rule: "vars[].default: a value of the var's type", name: "integer default with a fraction", replace: [][2]string{{"required: true", "default: 1.5"}}, want: `resources[0].vars[1].default: "1.5": the API server refuses the CRD the import creates for kind Widget: spec.validation.openAPIV3Schema.properties[spec].properties[count].default: Invalid value: must be of type integer: "number"`},
		{rule: "vars[].default: one of the options", name: "default not an option", replace: [][2]string{{"default: small", "default: medium"}}, want: `c/operator-config.yml:18: resources[0].vars[0].default: "medium": the API server refuses the CRD the import creates for kind Widget: spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Unsupported value: supported values: "small", "large"`},
		{rule: "vars[].kindReference: a kind", name: "kindReference", replace: [][2]string{{"type: integer", "type: string\n        kindReference: Widget"}}},
		{rule: "vars[].kindReference: a kind", name: "kindReference not a kind", replace: [][2]string{{"type: integer", "type: string\n        kindReference: widgets"}}, want: `resources[0].vars[1].kindReference: "widgets" is not a kind`},
		{rule: "vars[].type: password holds a Secret name", name: "password default not a Secret name", replace: [][2]string{{"type: integer\n        required: true", "type: password\n        default: My_Secret"}}, want: `resources[0].vars[1].default: "My_Secret" is not a Secret name`},
		{rule: "hideResource: boolean", name: "hideResource", replace: [][2]string{{"    finalizer:", "    hideResource: true\n    finalizer:"}}},
		{rule: "hideResource: boolean", name: "hideResource string", replace: [][2]string{{"    finalizer:", "    hideResource: \"true\"\n    finalizer:"}}, want: `c/operator-config.yml:12: resources[0].hideResource: must be true or false`},
		{rule: "icon[].base64data: Required", name: "base64data missing", replace: [][2]string{{"  - base64data: PHN2Zy8+\n    mediatype", "  - mediatype"}}, want: "c/operator-config.yml:34: icon[0].base64data: required field is missing"},
		{rule: "icon[].base64data: base64-encoded", name: "not base64", replace: [][2]string{{"base64data: PHN2Zy8+", "base64data: <svg/>"}}, want: `c/operator-config.yml:34: icon[0].base64data: not base64`},
		{rule: "icon[].mediatype: Required", name: "mediatype missing", replace: [][2]string{{"    mediatype: image/svg+xml\n", ""}}, want: "c/operator-config.yml:34: icon[0].mediatype: required field is missing"},
		{rule: "icon[].mediatype: a media type", name: "mediatype with a parameter", replace: [][2]string{{"mediatype: image/svg+xml", "mediatype: image/svg+xml;base64"}}},
		{rule: "icon[].mediatype: a media type", name: "not a media type", replace: [][2]string{{"mediatype: image/svg+xml", "mediatype: svg"}}, want: `c/operator-config.yml:35: icon[0].mediatype: "svg" is not a media type`},
		{rule: "clusterRoles[].rules: policy rules", name: "rule as an entry (z/OS Cloud Broker schema form)", replace: [][2]string{{"clusterRoles:\n  - rules:\n      - apiGroups", "clusterRoles:\n  - apiGroups"}, {"        resources: [nodes]\n        verbs: [get]", "    resources: [nodes]\n    verbs: [get]"}}},
		{rule: "clusterRoles[].rules: policy rules", name: "non-resource URLs", replace: [][2]string{{"      - apiGroups: [\"\"]\n        resources: [nodes]", "      - nonResourceURLs: [/healthz]"}}},
		{rule: "clusterRoles[].rules: policy rules", name: "rule without verbs", replace: [][2]string{{"        resources: [nodes]\n        verbs: [get]", "        resources: [nodes]"}}, want: "c/operator-config.yml:25: clusterRoles[0].rules[0].verbs: a policy rule needs at least one verb"},
		{rule: "clusterRoles[].rules: policy rules", name: "rule without API groups", replace: [][2]string{{"      - apiGroups: [\"\"]\n        resources: [nodes]", "      - resources: [nodes]"}}, want: "clusterRoles[0].rules[0].apiGroups: a resource rule needs at least one API group"},
		{rule: "roles[].rules: namespace-scoped policy rules", name: "Role with non-resource URLs", replace: [][2]string{{"        resources: [secrets]", "        nonResourceURLs: [/metrics]"}}, want: "c/operator-config.yml:31: roles[0].rules[0].nonResourceURLs: a Role cannot grant nonResourceURLs"},
		{rule: "the operator-config is one YAML mapping", name: "duplicate key", replace: [][2]string{{"name: widgets\n", "name: widgets\nname: gadgets\n"}}, want: `c/operator-config.yml:3: name: duplicate key (also on line 2)`},
		{rule: "the operator-config is one YAML mapping", name: "not a mapping", files: map[string]string{"operator-config.yml": "- domain: example\n"}, want: "c/operator-config.yml:1: must be a mapping, not a list"},
		{rule: "the operator-config is one YAML mapping", name: "invalid YAML", files: map[string]string{"operator-config.yml": "domain: [example\n"}, want: "c/operator-config.yml:1: invalid YAML"},
		{rule: "the operator-config is one YAML mapping", name: "two documents", files: map[string]string{"operator-config.yml": baseFiles["operator-config.yml"] + "---\ndomain: x\n"}, want: "a second YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := renderCase(t, c)
			var errs []string
			for _, r := range out.Results.Errors() {
				errs = append(errs, r.String())
			}
			if c.want == "" {
				assert.Empty(t, errs, "rule %q", c.rule)
				assert.NotEmpty(t, out.Objects)
				return
			}
			found := false
			for _, e := range errs {
				found = found || strings.Contains(e, c.want)
			}
			assert.True(t, found, "rule %q: no error contains %q in\n%s", c.rule, c.want, strings.Join(errs, "\n"))
		})
	}
	base := renderCase(t, ruleCase{name: "base"})
	assert.Empty(t, base.Results, "the base collection is valid and complete")
}

// TestCollectionWarnings are the SHOULDs of the specification and what cannot be checked for sure:
// warnings, and the objects are still rendered.
func TestCollectionWarnings(t *testing.T) {
	for _, c := range []ruleCase{
		{rule: "domain SHOULD be the galaxy.yml namespace", name: "domain differs", replace: [][2]string{{"domain: example", "domain: example-fork"}}, want: `c/operator-config.yml:1: warning: domain: "example-fork" differs from the namespace "example" of c/galaxy.yml:1`},
		{rule: "name SHOULD be the galaxy.yml name", name: "galaxy name with underscores", replace: [][2]string{{"name: widgets", "name: my-widgets"}}, files: map[string]string{"galaxy.yml": "namespace: example\nname: my_widgets\nversion: 1.0.0\n"}, want: ""},
		{rule: "name SHOULD be the galaxy.yml name", name: "name differs", replace: [][2]string{{"name: widgets", "name: gadgets"}}, want: `c/operator-config.yml:2: warning: name: "gadgets" differs from the name "widgets" of c/galaxy.yml:2`},
		{rule: "version SHOULD be the galaxy.yml version", name: "version differs", file: "galaxy.yml", replace: [][2]string{{"version: 1.0.0", "version: 1.1.0"}}, want: `c/operator-config.yml:3: warning: version: "1.0.0" differs from the version "1.1.0" of c/galaxy.yml:3`},
		{rule: "vars[].name MUST conform to an existing variable referenced in the playbook or role", name: "unused var", replace: [][2]string{{"name: count", "name: counter"}}, want: `c/operator-config.yml:19: warning: resources[0].vars[1].name: no playbook, role or template of the collection uses variable "counter"`},
		{rule: "finalizer: hosts: all", name: "finalizer on localhost", file: "playbooks/delete.yml", replace: [][2]string{{"hosts: all", "hosts: localhost"}}, want: `c/playbooks/delete.yml:2: warning: [0].hosts: "localhost" is not all`},
		{rule: "no galaxy.yml", name: "no galaxy.yml", files: map[string]string{"galaxy.yml": deleted}, want: "c/operator-config.yml: warning: no galaxy.yml (or MANIFEST.json) next to it: c does not look like the root of an Ansible collection"},
		{rule: "unknown fields", name: "unknown field", replace: [][2]string{{"displayName: Widget Operator", "displayName: Widget Operator\nprovider: Acme"}}, want: `c/operator-config.yml:5: warning: provider: unknown field`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := renderCase(t, c)
			assert.False(t, out.Results.HasErrors(), "%v", out.Results)
			assert.NotEmpty(t, out.Objects)
			var lines []string
			for _, r := range out.Results {
				lines = append(lines, r.String())
			}
			if c.want == "" {
				assert.Empty(t, lines)
				return
			}
			assert.Contains(t, strings.Join(lines, "\n"), c.want, c.rule)
		})
	}
}

func TestCollectionMissingOperatorConfig(t *testing.T) {
	out := collection.RenderFS(fstest.MapFS{"galaxy.yml": {Data: []byte("name: x\n")}}, "coll", collection.Options{})
	require.Len(t, out.Results, 1)
	assert.Equal(t, "coll: no operator-config.yml or operator-config.yaml at the collection's root: an OperatorCollection needs one", out.Results[0].String())
	out = collection.RenderFS(fstest.MapFS{"operator-config.yml": {Data: []byte("domain: x\n")}, "operator-config.yaml": {Data: []byte("domain: x\n")}}, "coll", collection.Options{})
	assert.Equal(t, "coll/operator-config.yaml: both operator-config.yml and operator-config.yaml exist: keep one", out.Results[0].String())
}
