package fbc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// TestSnapshotRealCatalogs: every package of the project's real catalogs
// survives the snapshot (same facts, same bytes written again), and the
// snapshot, its related images kept as catalog extract keeps them, matches
// the reviewed golden file.
func TestSnapshotRealCatalogs(t *testing.T) {
	c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, realCatalogs(t))
	require.NoError(t, err)
	snap := roundTrip(t, c)

	want := filepath.Join("testdata", "real.snapshot.yaml")
	if *golden.Update {
		require.NoError(t, os.WriteFile(want, snap, 0o644))
	}
	b, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(snap), "go test ./internal/fbc -run TestSnapshotRealCatalogs -update rewrites it")

	// What the snapshot leaves out.
	for _, s := range []string{"base64data", "crdDescriptions", "capabilities:", "createdAt", "description"} {
		assert.NotContains(t, string(snap), s)
	}
	// Related images are kept, in the catalog's order, digests and all.
	assert.Contains(t, string(snap), "      relatedImages:\n      - {image: 'docker.io/kubegreen/kube-green:0.7.1'}\n"+
		"      - {image: 'quay.io/community-operator-pipeline-prod/kube-green@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0'}\n")
	// alm-examples are parsed, not a string.
	assert.Contains(t, string(snap), "      almExamples:\n      - apiVersion: kube-green.com/v1alpha1\n")
	assert.Less(t, len(snap), int(treeBytes(t, realCatalogs(t)))/3, "a snapshot is compact")
}

func treeBytes(t *testing.T, dir string) int64 {
	n, err := treeSize(dir)
	require.NoError(t, err)
	return n
}

// TestSnapshotSynthetic covers what the real catalogs lack: deprecations,
// the old olm.bundle.object rendering, channels without a head or with
// several, cycles, examples that do not parse, and strings and numbers that
// need care in YAML.
func TestSnapshotSynthetic(t *testing.T) {
	weird := []string{"", "yes", "no", "on", "null", "~", "true", "0x10", "010", "1.10", "1e3", ".inf", "-", "- x", "a: b", "a:b", "#x", "x #y",
		" lead", "trail ", "multi\nline\n", "keep\n\n", "strip\nme", "\nfirst", "tab\there", "cr\r\n", "\u2028", "emoji 😀", "\x7f", "\u0085",
		"\"quoted\"", "back\\slash", "'single'", "[flow]", "{flow}", "*alias", "&anchor", "!tag", "%dir", "@at", "`tick`", "<<", "2021-02-21",
		"12:30", "= x", "? x", "|", ">", "very long " + strings.Repeat("word ", 40)}
	examples := []map[string]any{{"apiVersion": "w.example.com/v1", "kind": "Weird", "metadata": map[string]any{"name": "w"}}}
	spec := map[string]any{"n": json.Number("0.10"), "big": json.Number("12345678901234567890"), "neg": json.Number("-0.5"),
		"exp": json.Number("1e5"), "t": true, "f": false, "null": nil, "empty": map[string]any{}, "none": []any{}, "nested": []any{[]any{"a", json.Number("1")}, []any{}}}
	for i, s := range weird {
		spec[fmt.Sprintf("k%02d", i)] = s
		spec[s] = json.Number(fmt.Sprint(i))
	}
	examples[0]["spec"] = spec
	exJSON, err := json.Marshal(examples)
	require.NoError(t, err)
	// YAML wants DEL and NEL escaped in double-quoted strings; JSON does not.
	quote := func(s string) string {
		q := yamlQuote(s)
		return strings.NewReplacer("\x7f", `\u007f`, "\u0085", `\u0085`).Replace(q)
	}
	weirdBundle := strings.Replace(bundleYAML("w", "w.v1", "1.0.0", ""), "      capabilities: Basic Install\n",
		"      alm-examples: "+quote(string(exJSON))+"\n      olm.weird: "+quote(strings.Join(weird, "|"))+"\n      olm.empty: \"\"\n      operatorframework.io/suggested-namespace: w-ns\n", 1)
	weirdBundle = strings.Replace(weirdBundle, "- type: olm.maxOpenShiftVersion\n  value: \"4.20\"\n",
		"- type: olm.constraint\n  value: {failureMessage: \"needs: x\", cel: {rule: 'properties.exists(p, p.type == \"x\")'}, list: [1, 2.50, null, true]}\n- type: example.com/null\n  value: null\n", 1)

	cases := map[string]string{
		"simple": simpleCatalog("foo"),
		"deprecations": strings.ReplaceAll(simpleCatalog("dep"), "stable", "beta") + deprecationsCatalog +
			channelYAML("dep", "stable", "name: dep.v1.0.0"),
		"old shape":    oldShapeCatalog(csvJSON),
		"no head":      pkgYAML("p", "ch") + channelYAML("p", "ch", "{name: a, replaces: b}", "{name: b, replaces: a}") + bundleYAML("p", "a", "1", "") + bundleYAML("p", "b", "2", ""),
		"two heads":    pkgYAML("p", "ch") + channelYAML("p", "ch", "name: b", "name: a", "{name: c, replaces: a, skipRange: '<1.0.0'}") + bundleYAML("p", "a", "1", "") + bundleYAML("p", "b", "2", "") + bundleYAML("p", "c", "3", ""),
		"self skip":    pkgYAML("p", "ch") + channelYAML("p", "ch", "{name: a, skips: [a, gone]}") + bundleYAML("p", "a", "1", ""),
		"bad examples": pkgYAML("p", "ch") + channelYAML("p", "ch", "name: a", "{name: b, replaces: a}", "{name: c, replaces: b}") + bundleYAML("p", "a", "1", `[{"kind": "Widget",}]`) + bundleYAML("p", "b", "2", `{"kind": "Widget"}`) + bundleYAML("p", "c", "3", "  "),
		"weird":        pkgYAML("w", "stable") + channelYAML("w", "stable", "name: w.v1") + weirdBundle,
		"json":         jsonCatalog,
		"no channel":   pkgYAML("lonely", "") + bundleYAML("lonely", "lonely.v1", "1", ""),
		"required": pkgYAML("r", "stable") + channelYAML("r", "stable", "name: r.v1") + strings.Replace(bundleYAML("r", "r.v1", "1", ""), "- type: olm.maxOpenShiftVersion",
			"- type: olm.gvk.required\n  value: {group: \"\", version: v1, kind: ConfigMap}\n- type: olm.package.required\n  value: {packageName: other, versionRange: '>=1.0.0 <2.0.0'}\n- type: olm.maxOpenShiftVersion", 1),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			file := "c.yaml"
			if name == "json" {
				file = "c.json"
			}
			c, err := fbc.Load(writeTree(t, map[string]string{file: content}))
			require.NoError(t, err)
			snap := roundTrip(t, c)
			var doc map[string]any
			require.NoError(t, yaml.Unmarshal(snap, &doc), "the snapshot is one YAML document")
		})
	}

	t.Run("weird strings stay exact", func(t *testing.T) {
		c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": cases["weird"]}))
		require.NoError(t, err)
		snap := snapshotOf(t, c)
		back, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": string(snap)}))
		require.NoError(t, err)
		p, _ := back.Package("w")
		b := p.Bundles["w.v1"]
		assert.Equal(t, strings.Join(weird, "|"), b.Annotations["olm.weird"])
		assert.Equal(t, "", b.Annotations["olm.empty"])
		assert.Equal(t, "w-ns", b.Annotations["operatorframework.io/suggested-namespace"])
		ex, err := b.Examples()
		require.NoError(t, err)
		got := ex[0]["spec"].(map[string]any)
		for k, v := range spec {
			assert.Equal(t, v, got[k], "key %q", k)
		}
		// Other YAML readers agree (YAML 1.1 rules included).
		var generic map[string]any
		require.NoError(t, yaml.Unmarshal(snap, &generic))
	})

	t.Run("deprecations are written", func(t *testing.T) {
		c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": cases["deprecations"]}))
		require.NoError(t, err)
		snap := string(snapshotOf(t, c))
		assert.Contains(t, snap, "    deprecations:\n    - reference: {schema: olm.package}\n      message: the whole package is deprecated\n")
		assert.Contains(t, snap, "- reference: {schema: olm.bundle, name: dep.v1.0.0}\n")
	})
	t.Run("head errors are written", func(t *testing.T) {
		c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": cases["two heads"]}))
		require.NoError(t, err)
		assert.Contains(t, string(snapshotOf(t, c)), "headError: 'multiple channel heads found: b, c'\n")
	})
}

// TestSnapshotIndependentOfFileOrder: the same catalog cut into files in
// any way, in any order, in YAML or JSON, gives byte-identical snapshots.
func TestSnapshotIndependentOfFileOrder(t *testing.T) {
	c, err := fbc.Load(realCatalogs(t))
	require.NoError(t, err)
	want := snapshotOf(t, c)

	// Every blob of the real catalogs, as a value tree.
	var blobs []map[string]any
	err = filepath.WalkDir(realCatalogs(t), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := manifest.Decode(p, data)
		if err != nil {
			return err
		}
		for _, o := range objs {
			blobs = append(blobs, o.Map)
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, len(blobs), 50)

	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 42))
			r.Shuffle(len(blobs), func(i, j int) { blobs[i], blobs[j] = blobs[j], blobs[i] })
			files := map[string]*bytes.Buffer{}
			for i, blob := range blobs {
				name := fmt.Sprintf("d%d/f%d", r.IntN(5), r.IntN(7))
				if r.IntN(3) == 0 {
					name += ".json"
				} else {
					name += ".yaml"
				}
				if files[name] == nil {
					files[name] = &bytes.Buffer{}
				}
				if strings.HasSuffix(name, ".json") {
					b, err := manifest.MarshalJSON(blob)
					require.NoError(t, err)
					files[name].Write(b)
					files[name].WriteString("\n")
				} else {
					b, err := manifest.MarshalYAML(blob)
					require.NoError(t, err)
					if i%2 == 0 {
						files[name].WriteString("---\n")
					} else if files[name].Len() > 0 {
						files[name].WriteString("---\n# a comment\n")
					}
					files[name].Write(b)
				}
			}
			tree := map[string]string{}
			for n, b := range files {
				tree[n] = b.String()
			}
			got, err := fbc.Load(writeTree(t, tree))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(snapshotOf(t, got)))
		})
	}
}

// TestSnapshotFilteredLoad: a filtered load of a snapshot parses only the
// packages it keeps.
func TestSnapshotFilteredLoad(t *testing.T) {
	c, err := fbc.Load(realCatalogs(t))
	require.NoError(t, err)
	snap := string(snapshotOf(t, c))
	// Break the nvidia package's text: only a load that reads it fails.
	i := strings.Index(snap, "  - name: nvidia-network-operator\n")
	require.Positive(t, i)
	broken := snap[:i] + "  - name: nvidia-network-operator\n      oops: [\n" + snap[i+len("  - name: nvidia-network-operator\n"):]
	dir := writeTree(t, map[string]string{"s.yaml": broken})

	kept, err := fbc.LoadWith(fbc.LoadOptions{Packages: []string{"kube-green", "linstor-operator"}}, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"kube-green", "linstor-operator"}, kept.PackageNames())
	full, err := fbc.LoadWith(fbc.LoadOptions{Packages: []string{"kube-green", "linstor-operator"}}, realCatalogs(t))
	require.NoError(t, err)
	assert.Equal(t, facts(t, full), facts(t, kept))

	_, err = fbc.Load(dir)
	require.ErrorContains(t, err, "s.yaml")
	require.ErrorContains(t, err, "invalid YAML")
}

// TestSnapshotOtherLayouts: a snapshot re-encoded by another tool (keys
// sorted, other indentation, JSON) reads the same.
func TestSnapshotOtherLayouts(t *testing.T) {
	c, err := fbc.Load(realCatalogs(t))
	require.NoError(t, err)
	snap := snapshotOf(t, c)
	var tree any
	require.NoError(t, yaml.Unmarshal(snap, &tree))

	sorted, err := manifest.MarshalYAML(mustValue(t, snap)) // keys sorted: packages before source
	require.NoError(t, err)
	var indented bytes.Buffer
	enc := yaml.NewEncoder(&indented)
	enc.SetIndent(4)
	require.NoError(t, enc.Encode(tree))
	asJSON, err := manifest.MarshalJSON(mustValue(t, snap))
	require.NoError(t, err)

	for name, file := range map[string]struct {
		name string
		data []byte
	}{
		"sorted keys": {"s.yaml", sorted}, "indented by 4": {"s.yaml", indented.Bytes()}, "JSON": {"s.json", asJSON},
	} {
		t.Run(name, func(t *testing.T) {
			back, err := fbc.Load(writeTree(t, map[string]string{file.name: string(file.data)}))
			require.NoError(t, err)
			assert.Equal(t, facts(t, c), facts(t, back))
			assert.Equal(t, string(snap), string(snapshotOf(t, back)))
		})
	}
	t.Run("AddBlob", func(t *testing.T) {
		b := fbc.NewBuilder(fbc.LoadOptions{Packages: []string{"kube-green"}})
		require.NoError(t, b.AddBlob(fbc.Source{File: "items"}, mustValue(t, snap).(map[string]any)))
		back, err := b.Catalog()
		require.NoError(t, err)
		assert.Equal(t, []string{"kube-green"}, back.PackageNames())
	})
}

func mustValue(t *testing.T, data []byte) any {
	t.Helper()
	objs, err := manifest.Decode("s.yaml", data)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0].Map
}

func TestSnapshotErrors(t *testing.T) {
	c, err := fbc.Load(writeTree(t, map[string]string{"c.yaml": simpleCatalog("foo")}))
	require.NoError(t, err)
	snap := string(snapshotOf(t, c))
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"apiVersion", "odlm-render.io/v1alpha1", "odlm-render.io/v9", []string{"CatalogSnapshot", `apiVersion "odlm-render.io/v9" is not supported`}},
		{"unknown spec field", "  source:\n", "  extra: 1\n  source:\n", []string{`spec: unknown field "extra"`}},
		{"unknown package field", "    defaultChannel: stable\n", "    defaultChannel: stable\n    icon: x\n", []string{`package "foo"`, `unknown field "icon"`}},
		{"unknown bundle field", "      version: 1.0.0\n", "      version: 1.0.0\n      icon: x\n", []string{`bundle "foo.v1.0.0"`, `unknown field "icon"`}},
		{"unknown entry field", "      - name: foo.v1.0.0\n", "      - name: foo.v1.0.0\n        weight: 3\n", []string{`channel "stable"`, `unknown field "weight"`}},
		{"head mismatch", "head: foo.v1.2.0", "head: foo.v1.1.0", []string{`channel "stable"`, `the head recorded ("foo.v1.1.0") is not the head of the entries ("foo.v1.2.0")`}},
		{"examples type", snap, "apiVersion: odlm-render.io/v1alpha1\nkind: CatalogSnapshot\nmetadata: {name: x}\nspec:\n  packages:\n  - name: foo\n    bundles:\n    - name: foo.v1\n      almExamples: {kind: X}\n",
			[]string{`bundle "foo.v1"`, "almExamples: expected a list or a string, got a mapping"}},
		{"no name", "  - name: foo\n", "  - nom: foo\n", []string{`package: field "name" is missing`}},
		{"bad YAML in a package", "    defaultChannel: stable\n", "    defaultChannel: [stable\n", []string{"s.yaml", "invalid YAML", "line 10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, snap, tc.old)
			bad := strings.Replace(snap, tc.old, tc.new, 1)
			_, err := fbc.Load(writeTree(t, map[string]string{"s.yaml": bad}))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
	t.Run("a package in a snapshot and in an FBC", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"s.yaml": snap, "fbc/c.yaml": simpleCatalog("foo")})
		_, err := fbc.Load(dir)
		require.ErrorIs(t, err, fbc.ErrDuplicate)
		assert.ErrorContains(t, err, `package "foo": olm.package defined twice`)
	})
}
