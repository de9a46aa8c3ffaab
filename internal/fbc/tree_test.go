package fbc_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

func TestTreeLayers(t *testing.T) {
	b := fbc.NewBuilder(fbc.LoadOptions{})
	tr := b.NewTree("img!/configs/")
	put := func(p, content string) { require.NoError(t, tr.Put(p, strings.NewReader(content))) }

	// layer 1
	put("a/catalog.yaml", simpleCatalog("old"))
	put("b/catalog.yaml", simpleCatalog("bar"))
	put("broken.yaml", "schema: [broken")
	put("c/.indexignore", "*.tmp.yaml\n")
	put("c/x.tmp.yaml", "schema: [broken")
	put("c/keep.json", `{"schema":"olm.package","name":"c"}`)
	put("README.md", "not a catalog file")
	put("gone/catalog.yaml", simpleCatalog("gone"))
	tr.NextLayer()
	// layer 2: deletions apply to layer 1 only, whatever their order
	put("a/new.yaml", simpleCatalog("foo"))
	tr.DeleteBelow("a")
	tr.Delete("broken.yaml")
	tr.Delete("gone")
	tr.NextLayer()
	require.NoError(t, tr.Commit())
	c, err := b.Catalog()
	require.NoError(t, err)
	assert.Equal(t, []string{"bar", "c", "foo"}, c.PackageNames())
	p, _ := c.Package("foo")
	assert.Equal(t, "img!/configs/a/new.yaml", p.Source.File)

	t.Run("a broken file that stays is an error", func(t *testing.T) {
		b := fbc.NewBuilder(fbc.LoadOptions{})
		tr := b.NewTree("img!/configs/")
		require.NoError(t, tr.Put("x/catalog.yaml", strings.NewReader(simpleCatalog("foo"))))
		require.NoError(t, tr.Put("y/catalog.yaml", strings.NewReader("schema: [broken")))
		err := tr.Commit()
		require.ErrorContains(t, err, "img!/configs/y/catalog.yaml (document 0): invalid YAML")
	})
	t.Run("deleting the root", func(t *testing.T) {
		b := fbc.NewBuilder(fbc.LoadOptions{})
		tr := b.NewTree("")
		require.NoError(t, tr.Put("x/catalog.yaml", strings.NewReader(simpleCatalog("foo"))))
		tr.NextLayer()
		tr.Delete("")
		require.NoError(t, tr.Put("y.yaml", strings.NewReader(simpleCatalog("bar"))))
		require.NoError(t, tr.Commit())
		c, err := b.Catalog()
		require.NoError(t, err)
		assert.Equal(t, []string{"bar"}, c.PackageNames())
	})
	t.Run("a read error is returned at once", func(t *testing.T) {
		tr := fbc.NewBuilder(fbc.LoadOptions{}).NewTree("")
		err := tr.Put("x.yaml", io.MultiReader(strings.NewReader("schema: olm.package\n"), errReader{}))
		require.ErrorIs(t, err, errBroken)
	})
}

var errBroken = errors.New("broken stream")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

// TestTreeMatchesFolder: the files of a folder put into a Tree in any order
// give what AddPath gives, errors included.
func TestTreeMatchesFolder(t *testing.T) {
	files := map[string]string{
		"a/catalog.yaml":   simpleCatalog("foo"),
		"a.yaml":           simpleCatalog("bar"),
		"z/dup.yaml":       pkgYAML("foo", "stable"),
		"sub/.indexignore": "skip.yaml\n",
		"sub/skip.yaml":    "schema: [broken",
		"sub/ok.json":      `{"schema":"olm.package","name":"j"}`,
	}
	dir := writeTree(t, files)
	_, want := fbc.Load(dir)
	require.ErrorIs(t, want, fbc.ErrDuplicate)

	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	for seed := range uint64(3) {
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		b := fbc.NewBuilder(fbc.LoadOptions{})
		tr := b.NewTree(dir + string(filepath.Separator))
		for _, n := range names {
			require.NoError(t, tr.Put(n, strings.NewReader(files[n])))
		}
		err := tr.Commit()
		if err == nil {
			_, err = b.Catalog()
		}
		require.Error(t, err)
		assert.Equal(t, want.Error(), err.Error())
	}
}

// TestParallelDecoding: a file big enough for the workers gives the same
// catalog as the same blobs read on one goroutine, and the first error in
// the file is the one reported.
func TestParallelDecoding(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(pkgYAML("big", "stable"))
	var entries []string
	for i := range 400 {
		name := fmt.Sprintf("big.v%d", i)
		e := "name: " + name
		if i > 0 {
			e = fmt.Sprintf("{name: %s, replaces: big.v%d}", name, i-1)
		}
		entries = append(entries, e)
		sb.WriteString(strings.Replace(bundleYAML("big", name, fmt.Sprintf("%d.0.0", i), widgetExamples), "    displayName: Example\n",
			"    displayName: Example\n    description: |\n"+strings.Repeat("      padding that pruning removes\n", 40), 1))
	}
	sb.WriteString(channelYAML("big", "stable", entries...))
	data := sb.String()
	require.Greater(t, len(data), 512<<10)

	load := func(data string) (*fbc.Catalog, fbc.Stats, error) {
		b := fbc.NewBuilder(fbc.LoadOptions{})
		if err := b.AddReader("big.yaml", strings.NewReader(data)); err != nil {
			return nil, b.Stats(), err
		}
		c, err := b.Catalog()
		return c, b.Stats(), err
	}
	c, st, err := load(data)
	require.NoError(t, err)
	assert.Equal(t, fbc.Stats{BytesRead: int64(len(data)), Packages: 1, Bundles: 400}, st)
	prev := runtime.GOMAXPROCS(1)
	one, _, err := load(data)
	runtime.GOMAXPROCS(prev)
	require.NoError(t, err)
	assert.Equal(t, facts(t, one), facts(t, c))
	p, _ := c.Package("big")
	head, err := p.HeadBundle("stable")
	require.NoError(t, err)
	assert.Equal(t, "big.v399", head.Name)

	// Two errors far apart: the first is reported.
	bad := strings.Replace(data, "name: big.v300\n", "name: [big.v300\n", 1)
	bad = strings.Replace(bad, "name: big.v10\n", "name: {big.v10\n", 1)
	_, _, err = load(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not find expected ',' or '}'")
}

// TestOldShapeFromRealData: a real package rewritten in the old rendering
// (its CSV and one CRD per API as olm.bundle.object properties, as opm
// rendered catalogs before olm.csv.metadata) gives the same catalog.
func TestOldShapeFromRealData(t *testing.T) {
	for _, pkg := range []string{"community/kube-green", "certified/nvidia-network-operator"} {
		t.Run(pkg, func(t *testing.T) {
			path := filepath.Join(realCatalogs(t), pkg, "catalog.yaml")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			objs, err := manifest.Decode(path, data)
			require.NoError(t, err)
			var out bytes.Buffer
			b64 := func(v any) string {
				j, err := manifest.MarshalJSON(v)
				require.NoError(t, err)
				return base64.StdEncoding.EncodeToString(j)
			}
			for _, o := range objs {
				blob := o.Map
				if blob["schema"] == "olm.bundle" {
					var props []any
					for _, p := range blob["properties"].([]any) {
						pm := p.(map[string]any)
						switch pm["type"] {
						case "olm.csv.metadata":
							md := pm["value"].(map[string]any)
							csv := map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
								"metadata": map[string]any{"name": blob["name"], "annotations": md["annotations"]},
								"spec": map[string]any{"displayName": md["displayName"], "installModes": md["installModes"], "description": md["description"],
									"minKubeVersion": md["minKubeVersion"]}}
							props = append(props, map[string]any{"type": "olm.bundle.object", "value": map[string]any{"data": b64(csv)}})
						case "olm.gvk":
							v := pm["value"].(map[string]any)
							crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
								"metadata": map[string]any{"name": strings.ToLower(fmt.Sprint(v["kind"])) + "s." + fmt.Sprint(v["group"])}}
							props = append(props, pm, map[string]any{"type": "olm.bundle.object", "value": map[string]any{"data": b64(crd)}})
						default:
							props = append(props, pm)
						}
					}
					blob["properties"] = props
				}
				y, err := manifest.MarshalYAML(blob)
				require.NoError(t, err)
				out.WriteString("---\n")
				out.Write(y)
			}
			require.Contains(t, out.String(), "olm.bundle.object")
			require.NotContains(t, out.String(), "olm.csv.metadata")
			oldShape, err := fbc.Load(writeTree(t, map[string]string{"catalog.yaml": out.String()}))
			require.NoError(t, err)
			newShape, err := fbc.Load(path)
			require.NoError(t, err)
			assert.Equal(t, facts(t, newShape), facts(t, oldShape))
			// the old shape also carries the bundles' manifests: contents the new shape lacks,
			// kept for the channel heads
			for _, pn := range oldShape.PackageNames() {
				p, _ := oldShape.Package(pn)
				heads := map[string]bool{}
				for _, cn := range p.ChannelNames() {
					h, err := p.HeadBundle(cn)
					require.NoError(t, err)
					heads[h.Name] = true
				}
				for _, b := range p.Bundles {
					if !heads[b.Name] {
						assert.Nil(t, b.Contents, b.Name)
						continue
					}
					require.NotNil(t, b.Contents, b.Name)
					assert.Len(t, b.Contents.CRDs, len(b.ProvidedGVKs), b.Name)
					b.Contents = nil
				}
			}
			assert.Equal(t, string(snapshotOf(t, newShape)), string(snapshotOf(t, oldShape)))
		})
	}
}

// TestTreeWhiteoutSemantics: the cases of the OCI layer format that a hostile image can
// shape, each with the catalog it must give.
func TestTreeWhiteoutSemantics(t *testing.T) {
	pkg := func(name string) string { return `{"schema":"olm.package","name":"` + name + `"}` }
	type op struct {
		put, del, below string // one of them; del and below "-" for the root
		next            bool
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want []string
	}{
		{"a whiteout of an .indexignore file drops its rules",
			[]op{{put: "a/.indexignore"}, {put: "a/x.json"}, {next: true}, {del: "a/.indexignore"}},
			[]string{"a/x.json"}},
		{"an opaque folder drops its .indexignore",
			[]op{{put: "a/.indexignore"}, {put: "a/x.json"}, {next: true}, {below: "a"}, {put: "a/y.json"}},
			[]string{"a/y.json"}},
		{"a whiteout in a layer spares the files of that layer, whatever their order",
			[]op{{put: "a/x.json"}, {next: true}, {put: "a/y.json"}, {below: "a"}, {del: "a/y.json"}},
			[]string{"a/y.json"}},
		{"a file replaces a folder of the same name from an earlier layer",
			[]op{{put: "a.json/x.json"}, {next: true}, {put: "a.json"}},
			[]string{"a.json"}},
		{"a file and a file below its name in one layer both stay",
			[]op{{put: "a.json/x.json"}, {put: "a.json"}},
			[]string{"a.json/x.json", "a.json"}},
		{"a file put again after its whiteout stays",
			[]op{{put: "a/x.json"}, {next: true}, {del: "a"}, {next: true}, {put: "a/x.json"}},
			[]string{"a/x.json"}},
		{"deleting the root spares later layers",
			[]op{{put: "a/x.json"}, {next: true}, {del: "-"}, {next: true}, {put: "b.json"}},
			[]string{"b.json"}},
		{"an opaque root",
			[]op{{put: "a/x.json"}, {put: "b.json"}, {next: true}, {below: "-"}, {put: "c.json"}},
			[]string{"c.json"}},
		{"a whiteout of a missing path, and of a prefix that is no folder, removes nothing",
			[]op{{put: "ab/x.json"}, {put: "a.json"}, {next: true}, {del: "a"}, {del: "nothing/here"}, {below: "a.j"}},
			[]string{"ab/x.json", "a.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fbc.NewBuilder(fbc.LoadOptions{})
			tr := b.NewTree("")
			for i, o := range tc.ops {
				root := func(p string) string {
					if p == "-" {
						return ""
					}
					return p
				}
				switch {
				case o.next:
					tr.NextLayer()
				case o.del != "":
					tr.Delete(root(o.del))
				case o.below != "":
					tr.DeleteBelow(root(o.below))
				case strings.HasSuffix(o.put, ".indexignore"):
					require.NoError(t, tr.Put(o.put, strings.NewReader("*.json\n")))
				default:
					require.NoError(t, tr.Put(o.put, strings.NewReader(pkg(fmt.Sprintf("p%d", i)))))
				}
			}
			require.NoError(t, tr.Commit())
			c, err := b.Catalog()
			require.NoError(t, err)
			var got []string
			for _, pn := range c.PackageNames() {
				p, _ := c.Package(pn)
				got = append(got, p.Source.File)
			}
			want := slices.Clone(tc.want)
			slices.Sort(got)
			slices.Sort(want)
			assert.Equal(t, want, got)
		})
	}
}

// TestTreeWhiteoutsAreLinear: a hostile image with as many whiteouts as files once took
// minutes (every whiteout scanned every file); now each costs the length of its path.
func TestTreeWhiteoutsAreLinear(t *testing.T) {
	const n = 20_000
	b := fbc.NewBuilder(fbc.LoadOptions{})
	tr := b.NewTree("")
	start := time.Now()
	for i := range n {
		require.NoError(t, tr.Put(fmt.Sprintf("d%d/f.json", i), strings.NewReader(`{"schema":"olm.package","name":"p`+strconv.Itoa(i)+`"}`)))
	}
	tr.NextLayer()
	for i := range n {
		if i%2 == 0 {
			tr.Delete(fmt.Sprintf("d%d", i))
		} else {
			tr.DeleteBelow(fmt.Sprintf("d%d", i))
		}
		tr.Delete(fmt.Sprintf("missing/d%d", i))
	}
	require.NoError(t, tr.Put("kept.json", strings.NewReader(`{"schema":"olm.package","name":"kept"}`)))
	tr.NextLayer()
	assert.Equal(t, 1, tr.Len())
	require.NoError(t, tr.Commit())
	c, err := b.Catalog()
	require.NoError(t, err)
	assert.Equal(t, []string{"kept"}, c.PackageNames())
	assert.Less(t, time.Since(start), 10*time.Second, "whiteouts must not scan the files")
}
