package image_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

func ociLayout(t *testing.T, img v1.Image) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "oci")
	p, err := layout.Write(dir, empty.Index)
	require.NoError(t, err)
	require.NoError(t, p.AppendImage(img))
	return dir
}

func dockerArchive(t *testing.T, img v1.Image) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "image.tar")
	ref, err := name.ParseReference("example.com/x:v1")
	require.NoError(t, err)
	require.NoError(t, tarball.WriteToFile(p, ref, img))
	return p
}

func layerDigest(t *testing.T, l v1.Layer) string {
	t.Helper()
	d, err := l.Digest()
	require.NoError(t, err)
	return d.String()
}

// tinyLayers are n layers of one small file each.
func tinyLayers(t *testing.T, n int, dir string) []v1.Layer {
	layers := make([]v1.Layer, n)
	for i := range layers {
		layers[i] = layer(t, entry{Name: fmt.Sprintf("%s/f%d.txt", dir, i), Body: "x"})
	}
	return layers
}

// manyEntries is a layer of n small files under dir.
func manyEntries(t *testing.T, n int, dir string) v1.Layer {
	entries := make([]entry, n)
	for i := range entries {
		entries[i] = entry{Name: fmt.Sprintf("%s/f%d.txt", dir, i), Body: "x"}
	}
	return layer(t, entries...)
}

// TestBundleImageLimits: a bundle image past a limit is an error naming the image, the layer,
// the file and the limit, found without reading further. Before, a 536 KB image holding one
// 250 MiB manifest was read into memory whole and decoded (out of memory at 4.3 GB, four
// pulls at once), and nothing bounded the rest.
func TestBundleImageLimits(t *testing.T) {
	host, _ := countingRegistry(t)
	bomb := testtools.ZerosLayer(t, "manifests/bomb.yaml", 40<<20)
	filler := testtools.ZerosLayer(t, "usr/share/filler.bin", 300<<20)
	trailing := testtools.ZerosLayer(t, "", 300<<20, entry{Name: "usr/share/x.txt", Body: "x"})
	many := manyEntries(t, 200, "usr/share")
	var manifests []v1.Layer // nine manifests of 7.5 MiB
	for i := range 9 {
		manifests = append(manifests, testtools.ZerosLayer(t, fmt.Sprintf("manifests/z%d.yaml", i), 15<<19))
	}
	for i, tc := range []struct {
		name   string
		layers []v1.Layer
		limits image.Limits
		want   []string
	}{
		{"a manifest past the file limit", []v1.Layer{bomb}, image.Limits{},
			[]string{"layer 2 (" + layerDigest(t, bomb) + ")", "/manifests/bomb.yaml", "more than 8 MiB in one file (limit Limits.MaxFileBytes)"}},
		{"layers past the image limit", []v1.Layer{filler}, image.Limits{},
			[]string{"layer 2 (" + layerDigest(t, filler) + ")", "/usr/share/filler.bin", "more than 256 MiB of layers, uncompressed (limit Limits.MaxImageBytes)"}},
		{"bytes after the end of a layer's tar", []v1.Layer{trailing}, image.Limits{},
			[]string{"layer 2 (" + layerDigest(t, trailing) + ")", "more than 256 MiB of layers, uncompressed (limit Limits.MaxImageBytes)"}},
		{"manifests past the limit of the files read", manifests, image.Limits{},
			[]string{"layer 10 (" + layerDigest(t, manifests[8]) + ")", "/manifests/z8.yaml", "more than 64 MiB of files read (limit Limits.MaxReadBytes)"}},
		{"more tar entries than the limit", []v1.Layer{many}, image.Limits{MaxFiles: 100},
			[]string{"layer 2 (" + layerDigest(t, many) + ")", "/usr/share/f", "more than 100 tar entries (limit Limits.MaxFiles)"}},
		{"more layers than the limit", tinyLayers(t, 128, "usr/share"), image.Limits{},
			[]string{"129 layers", "more than 128 layers (limit Limits.MaxLayers)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := fmt.Sprintf("%s/hostile/case%d:1", host, i)
			r, err := name.ParseReference(ref)
			require.NoError(t, err)
			require.NoError(t, remote.Write(r, testtools.BundleImage(t, kubeGreenBundle(t), "kube-green", tc.layers...)))
			start := time.Now()
			_, _, err = (&image.BundlePuller{Options: image.Options{Limits: tc.limits}}).Pull(context.Background(), ref)
			require.Error(t, err)
			assert.ErrorContains(t, err, ref+": ")
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
			var le *image.LimitError
			assert.ErrorAs(t, err, &le)
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

// TestCatalogImageLimits: the same for catalog images, from an OCI layout and a
// docker-archive (the limits are lowered: a catalog image's defaults are wide).
func TestCatalogImageLimits(t *testing.T) {
	kubeGreen := treeEntries(t, filepath.Join(realCatalogs(t), "community", "kube-green"), "configs/kube-green/")
	fbc := layer(t, kubeGreen...)
	bomb := testtools.ZerosLayer(t, "configs/big.json", 2<<20)
	filler := testtools.ZerosLayer(t, "usr/share/filler.bin", 32<<20)
	trailing := testtools.ZerosLayer(t, "", 32<<20, entry{Name: "usr/share/x.txt", Body: "x"})
	many := manyEntries(t, 200, "configs/many")
	for _, tc := range []struct {
		name   string
		layers []v1.Layer
		limits image.Limits
		want   []string
	}{
		{"a catalog file past the file limit", []v1.Layer{fbc, bomb}, image.Limits{MaxFileBytes: 1 << 20},
			[]string{"/configs/big.json", "more than 1 MiB in one file (limit Limits.MaxFileBytes)"}},
		{"layers past the image limit", []v1.Layer{fbc, filler}, image.Limits{MaxImageBytes: 16 << 20},
			[]string{"/usr/share/filler.bin", "more than 16 MiB of layers, uncompressed (limit Limits.MaxImageBytes)"}},
		{"bytes after the end of a layer's tar", []v1.Layer{fbc, trailing}, image.Limits{MaxImageBytes: 16 << 20},
			[]string{"more than 16 MiB of layers, uncompressed (limit Limits.MaxImageBytes)"}},
		{"more tar entries than the limit", []v1.Layer{fbc, many}, image.Limits{MaxFiles: 100},
			[]string{"/configs/many/f", "more than 100 tar entries (limit Limits.MaxFiles)"}},
		{"more layers than the limit", append([]v1.Layer{fbc}, tinyLayers(t, 128, "usr/share")...), image.Limits{},
			[]string{"129 layers", "more than 128 layers (limit Limits.MaxLayers)"}},
	} {
		img := build(t, nil, tc.layers...)
		for _, src := range []struct{ kind, path string }{{"oci-layout", ociLayout(t, img)}, {"docker-archive", dockerArchive(t, img)}} {
			t.Run(tc.name+", "+src.kind, func(t *testing.T) {
				start := time.Now()
				_, _, err := load(t, src.path, image.Options{Limits: tc.limits})
				require.Error(t, err)
				assert.ErrorContains(t, err, src.path+": ")
				for _, w := range tc.want {
					assert.ErrorContains(t, err, w)
				}
				if len(tc.layers) == 2 {
					assert.ErrorContains(t, err, "layer 2 (")
				}
				assert.Less(t, time.Since(start), 10*time.Second)
			})
		}
	}
}

// TestLocalImagesHonourTheDeadline: the timeout bounds reading an OCI layout or a
// docker-archive too, inside a layer. Before, only registry reads had a deadline, and a
// local decompression bomb ran until it was read through.
func TestLocalImagesHonourTheDeadline(t *testing.T) {
	bomb := testtools.ZerosLayer(t, "usr/share/filler.bin", 16<<30)
	catalogImg := build(t, nil, layer(t, entry{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"a"}`}), bomb)
	bundleImg := testtools.BundleImage(t, kubeGreenBundle(t), "kube-green", bomb)
	huge := image.Limits{MaxImageBytes: 1 << 50}
	opts := image.Options{Timeout: 300 * time.Millisecond, Limits: huge}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"catalog, OCI layout", func() error {
			_, _, err := load(t, ociLayout(t, catalogImg), opts)
			return err
		}},
		{"catalog, docker-archive", func() error {
			_, _, err := load(t, dockerArchive(t, catalogImg), opts)
			return err
		}},
		{"bundle, OCI layout", func() error {
			p := &image.BundlePuller{Options: opts, Rewrites: []image.Rewrite{{From: "quay.io/op/b:1", To: "oci:" + ociLayout(t, bundleImg)}}}
			_, _, err := p.Pull(context.Background(), "quay.io/op/b:1")
			return err
		}},
		{"bundle, docker-archive", func() error {
			p := &image.BundlePuller{Options: opts, Rewrites: []image.Rewrite{{From: "quay.io/op/b:1", To: dockerArchive(t, bundleImg)}}}
			_, _, err := p.Pull(context.Background(), "quay.io/op/b:1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := tc.read()
			require.Error(t, err)
			assert.ErrorContains(t, err, "timeout 300ms")
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestBundleWhiteouts: whiteouts in bundle images, as the OCI layer format has them; and as
// many whiteouts as files cost no more than reading them (before, each whiteout scanned every
// file).
func TestBundleWhiteouts(t *testing.T) {
	host, _ := countingRegistry(t)
	images := 0
	pull := func(t *testing.T, layers ...v1.Layer) (*catalog.Contents, error) {
		t.Helper()
		images++
		ref := fmt.Sprintf("%s/whiteouts/case%d:1", host, images)
		r, err := name.ParseReference(ref)
		require.NoError(t, err)
		require.NoError(t, remote.Write(r, testtools.BundleImage(t, kubeGreenBundle(t), "kube-green", layers...)))
		c, _, err := (&image.BundlePuller{}).Pull(context.Background(), ref)
		return c, err
	}
	plain, err := pull(t)
	require.NoError(t, err)
	crd := "manifests/kube-green.com_sleepinfos.yaml"
	extra := entry{Name: "manifests/extra.yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n"}

	t.Run("a whiteout in a layer spares the files of that layer", func(t *testing.T) {
		cm := func(name string) entry {
			return entry{Name: "manifests/sub/" + name + ".yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\n"}
		}
		c, err := pull(t, layer(t, cm("a")), layer(t, extra, cm("b"), entry{Name: "manifests/.wh.extra.yaml"},
			entry{Name: "manifests/.wh." + filepath.Base(crd)}, entry{Name: "manifests/sub/.wh..wh..opq"}))
		require.NoError(t, err)
		assert.Equal(t, []string{"b", "extra"}, objectNames(c, "ConfigMap"), "the opaque folder hides the earlier layer's file only")
		assert.Empty(t, c.CRDs, "the whiteout hides the earlier layer's CRD")
	})
	t.Run("a whiteout of the manifests folder, or an opaque root, removes every manifest", func(t *testing.T) {
		for _, wh := range []string{".wh.manifests", ".wh..wh..opq", "./.wh.manifests"} {
			_, err := pull(t, layer(t, entry{Name: wh}))
			require.Error(t, err, wh)
			assert.ErrorContains(t, err, "no manifest file (.yaml, .yml, .json) under /manifests", wh)
		}
	})
	t.Run("a file deleted then put again stays", func(t *testing.T) {
		c, err := pull(t, layer(t, entry{Name: "manifests/.wh." + filepath.Base(crd)}), layer(t, extra), layer(t, entry{Name: "manifests/.wh.extra.yaml"}, extra))
		require.NoError(t, err)
		assert.Empty(t, c.CRDs)
		assert.Equal(t, []string{"extra"}, objectNames(c, "ConfigMap"))
	})
	t.Run("as many whiteouts as files", func(t *testing.T) {
		const n = 40_000
		junk := make([]entry, n)
		whiteouts := make([]entry, n)
		for i := range junk {
			junk[i] = entry{Name: fmt.Sprintf("manifests/junk/j%d.yaml", i), Body: "x: 1\n"}
			whiteouts[i] = entry{Name: fmt.Sprintf("manifests/junk/.wh.j%d.yaml", i)}
		}
		start := time.Now()
		c, err := pull(t, layer(t, junk...), layer(t, whiteouts...))
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(plain, c), "the junk is gone")
		assert.Less(t, time.Since(start), 10*time.Second)
	})
}

// objectNames are the names of a bundle's objects of a kind.
func objectNames(c *catalog.Contents, kind string) []string {
	var out []string
	for _, o := range c.Objects {
		if o.Kind == kind {
			out = append(out, o.Name)
		}
	}
	return out
}

// savedArchive writes an image as `docker save` does: plain layer tars (the second and later
// copies of a layer as links to the first), the config and manifest.json, after the entries
// before; gzipped when gz is set. bomb, when positive, is a file of that many zeros first,
// written in kilobytes.
func savedArchive(t *testing.T, img v1.Image, gz bool, bomb int64, before ...entry) string {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	cfg, err := img.RawConfigFile()
	require.NoError(t, err)
	var entries []testtools.TarEntry
	entries = append(entries, before...)
	var paths []string
	first := map[v1.Hash]string{}
	for i, l := range layers {
		d, err := l.DiffID()
		require.NoError(t, err)
		p := fmt.Sprintf("l%d/layer.tar", i)
		paths = append(paths, p)
		if f, ok := first[d]; ok {
			entries = append(entries, entry{Name: p, Link: "../" + f})
			continue
		}
		first[d] = p
		rc, err := l.Uncompressed()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		entries = append(entries, entry{Name: p, Body: string(data)})
	}
	manifest, err := json.Marshal([]map[string]any{{"Config": "config.json", "RepoTags": []string{"example.com/x:v1"}, "Layers": paths}})
	require.NoError(t, err)
	entries = append(entries, entry{Name: "config.json", Body: string(cfg)}, entry{Name: "manifest.json", Body: string(manifest)})
	var data []byte
	switch {
	case bomb > 0:
		data = gzipBytes(t, layer(t, entries...), testtools.ZerosLayer(t, "bomb.bin", bomb))
	case gz:
		data = gzipBytes(t, layer(t, entries...))
	default:
		rc, err := layer(t, entries...).Uncompressed()
		require.NoError(t, err)
		data, err = io.ReadAll(rc)
		require.NoError(t, err)
	}
	p := filepath.Join(t.TempDir(), "saved.tar")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// gzipBytes is the gzip of a layer's tar; with a bomb layer (gzip), the bomb's members come
// first, its tar's end dropped, then the layer's.
func gzipBytes(t *testing.T, l v1.Layer, bomb ...v1.Layer) []byte {
	t.Helper()
	rc, err := l.Uncompressed()
	require.NoError(t, err)
	plain, err := io.ReadAll(rc)
	require.NoError(t, err)
	var out bytes.Buffer
	if len(bomb) > 0 {
		rc, err := bomb[0].Compressed()
		require.NoError(t, err)
		z, err := io.ReadAll(rc)
		require.NoError(t, err)
		// the bomb's last member holds its padding and the end of its tar: rewrite it
		last := bytes.LastIndex(z, []byte{0x1f, 0x8b, 8})
		require.Positive(t, last)
		zr, err := gzip.NewReader(bytes.NewReader(z[last:]))
		require.NoError(t, err)
		tail, err := io.ReadAll(zr)
		require.NoError(t, err)
		out.Write(z[:last])
		plain = append(tail[:len(tail)-1024], plain...)
	}
	zw := gzip.NewWriter(&out)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// TestDockerArchives: archives as `docker save` writes them are read, and a hostile archive
// is refused after a bounded read. Before, go-containerregistry read manifest.json and the
// config whole, and read the archive through for each file it needed.
func TestDockerArchives(t *testing.T) {
	kubeGreen := treeEntries(t, filepath.Join(realCatalogs(t), "community", "kube-green"), "configs/kube-green/")
	base := layer(t, entry{Name: "usr/bin/opm", Body: "\x7fELF"})
	img := build(t, nil, base, layer(t, kubeGreen...), base)
	t.Run("plain and gzipped, a repeated layer as a link", func(t *testing.T) {
		for _, gz := range []bool{false, true} {
			c, _, err := load(t, savedArchive(t, img, gz, 0), image.Options{})
			require.NoError(t, err)
			assert.Equal(t, []string{"kube-green"}, c.PackageNames())
		}
	})
	bigConfig := build(t, map[string]string{"padding": strings.Repeat("x", 9<<20)}, layer(t, kubeGreen...))
	for _, tc := range []struct {
		name   string
		path   string
		limits image.Limits
		want   string
	}{
		{"a manifest.json past its limit", savedArchive(t, img, false, 0, entry{Name: "manifest.json", Body: strings.Repeat(" ", 5<<20) + "[]"}), image.Limits{},
			"more than 4 MiB in manifest.json (a fixed limit)"},
		{"a config past its limit", savedArchive(t, bigConfig, true, 0), image.Limits{},
			"the image config (config.json): more than 8 MiB in the image config (a fixed limit)"},
		{"layers past the image limit", savedArchive(t, img, false, 0), image.Limits{MaxImageBytes: 4 << 10},
			"more than 4096 bytes of layers (limit Limits.MaxImageBytes)"},
		{"a gzipped archive that decompresses past the image limit", savedArchive(t, img, true, 1<<30), image.Limits{MaxImageBytes: 16 << 20},
			"more than 80 MiB in the archive, uncompressed (limit Limits.MaxImageBytes, plus 64 MiB)"},
		{"more layers than the limit", savedArchive(t, build(t, nil, append([]v1.Layer{layer(t, kubeGreen...)}, tinyLayers(t, 8, "usr")...)...), false, 0),
			image.Limits{MaxLayers: 4}, "9 layers: more than 4 layers (limit Limits.MaxLayers)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, _, err := load(t, tc.path, image.Options{Limits: tc.limits})
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.path+": ")
			assert.ErrorContains(t, err, tc.want)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}
