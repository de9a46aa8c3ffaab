package image_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testtools"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// exampleCatalog is the project's example catalog (FBC of two packages): for the tests
// that need a catalog image but no real catalog's contents.
const exampleCatalog = "../../examples/quickstart/catalog"

// realCatalogs is the reference folder's copy of testdata/catalogs: packages of the real
// community and certified catalogs (t skips without it).
func realCatalogs(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs")
}

// entry is one tar entry of a test layer.
type entry = testtools.TarEntry

func layer(t *testing.T, entries ...entry) v1.Layer {
	t.Helper()
	return testtools.Layer(t, entries...)
}

// treeEntries puts the files of a folder under prefix.
func treeEntries(t *testing.T, dir, prefix string) []entry {
	t.Helper()
	var out []entry
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entry{Name: prefix + filepath.ToSlash(rel), Body: string(data)})
		return nil
	}))
	return out
}

func build(t *testing.T, labels map[string]string, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	require.NoError(t, err)
	img, err = mutate.Config(img, v1.Config{Labels: labels})
	require.NoError(t, err)
	return img
}

// catalogImage is the real test catalogs in an image as opm builds them: a
// base layer with other files (and stale catalog data the next layer
// deletes), then the FBC under /configs.
func catalogImage(t *testing.T) v1.Image {
	base := layer(t,
		entry{Name: "bin/opm", Body: "\x7fELF…"},
		entry{Name: "etc/not-a-catalog.yaml", Body: "schema: [broken"},
		entry{Name: "configs/stale/catalog.yaml", Body: "schema: [broken"},
		entry{Name: "configs/older/catalog.json", Body: `{"schema":"olm.package","name":"older"}`},
	)
	configs := layer(t, append(treeEntries(t, realCatalogs(t), "configs/"),
		entry{Name: "configs/.wh.stale"},
		entry{Name: "configs/older/.wh..wh..opq"},
		entry{Name: "configs/README.md", Body: "not read"})...)
	return build(t, map[string]string{image.ConfigsLabel: "/configs"}, base, configs)
}

func snapshot(t *testing.T, c *catalog.Catalog) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, fbc.WriteSnapshot(c, &buf, fbc.SnapshotMeta{Name: "x"}))
	return buf.String()
}

func load(t *testing.T, source string, opts image.Options) (*catalog.Catalog, image.Info, error) {
	t.Helper()
	b := fbc.NewBuilder(catalog.LoadOptions{})
	info, err := image.Load(context.Background(), source, b, opts)
	if err != nil {
		return nil, info, err
	}
	c, err := b.Catalog()
	return c, info, err
}

// TestImageSources: the same catalog image as an OCI layout, a
// docker-archive (plain and gzipped) and from a registry gives the
// snapshot of the FBC folder it was built from.
func TestImageSources(t *testing.T) {
	cat, err := catalog.Load(realCatalogs(t))
	require.NoError(t, err)
	want := snapshot(t, cat)
	img := catalogImage(t)
	digest, err := img.Digest()
	require.NoError(t, err)
	configDigest, err := img.ConfigName()
	require.NoError(t, err)
	dir := t.TempDir()

	ociDir := filepath.Join(dir, "oci")
	p, err := layout.Write(ociDir, empty.Index)
	require.NoError(t, err)
	require.NoError(t, p.AppendImage(img))

	ref, err := name.ParseReference("example.com/catalog:v1")
	require.NoError(t, err)
	archive := filepath.Join(dir, "catalog.tar")
	require.NoError(t, tarball.WriteToFile(archive, ref, img))
	raw, err := os.ReadFile(archive)
	require.NoError(t, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	gzArchive := filepath.Join(dir, "catalog.tar.gz")
	require.NoError(t, os.WriteFile(gzArchive, gz.Bytes(), 0o644))

	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	regRef, err := name.ParseReference(host + "/olm/catalog:v4.20")
	require.NoError(t, err)
	require.NoError(t, remote.Write(regRef, img))

	tests := []struct {
		source string
		kind   image.Kind
		digest string
	}{
		{ociDir, image.KindOCILayout, digest.String()},
		{"oci:" + ociDir, image.KindOCILayout, digest.String()},
		{archive, image.KindDockerArchive, ""},
		{gzArchive, image.KindDockerArchive, ""},
		{host + "/olm/catalog:v4.20", image.KindRegistry, digest.String()},
		{"docker://" + host + "/olm/catalog@" + digest.String(), image.KindRegistry, digest.String()},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind)+" "+tc.source, func(t *testing.T) {
			var read int64
			c, info, err := load(t, tc.source, image.Options{OnRead: func(n int64) { read += n }})
			require.NoError(t, err)
			assert.Equal(t, want, snapshot(t, c))
			assert.Equal(t, tc.kind, info.Kind)
			assert.Equal(t, tc.digest, info.Digest)
			assert.Equal(t, configDigest.String(), info.ImageID)
			assert.Equal(t, "/configs", info.Root)
			assert.Equal(t, 9, info.Files)
			assert.Positive(t, read)
			p, _ := c.Package("kube-green")
			assert.Equal(t, tc.source+"!/configs/community/kube-green/catalog.yaml", p.Source.File)
		})
	}
	t.Run("filtered", func(t *testing.T) {
		b := fbc.NewBuilder(catalog.LoadOptions{Packages: []string{"kube-green"}})
		_, err := image.Load(context.Background(), archive, b, image.Options{})
		require.NoError(t, err)
		c, err := b.Catalog()
		require.NoError(t, err)
		assert.Equal(t, []string{"kube-green"}, c.PackageNames())
	})
	t.Run("missing image in the registry", func(t *testing.T) {
		_, _, err := load(t, host+"/olm/nothing:v1", image.Options{})
		require.ErrorContains(t, err, host+"/olm/nothing:v1")
		assert.ErrorContains(t, err, "NAME_UNKNOWN")
	})
	t.Run("a registry that does not answer times out", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { c.Close() }) // accepted, never answered
			}
		}()
		start := time.Now()
		_, _, err = load(t, l.Addr().String()+"/x:v1", image.Options{Timeout: 300 * time.Millisecond})
		require.Error(t, err)
		assert.ErrorContains(t, err, "timeout 300ms")
		assert.Less(t, time.Since(start), 10*time.Second)
	})
}

func TestImageLayout(t *testing.T) {
	kubeGreen := treeEntries(t, filepath.Join(realCatalogs(t), "community", "kube-green"), "data/fbc/kube-green/")
	t.Run("label names the root", func(t *testing.T) {
		img := build(t, map[string]string{image.ConfigsLabel: "/data/fbc/"}, layer(t, append(kubeGreen,
			entry{Name: "configs/other/catalog.yaml", Body: "schema: [not read"})...))
		c, info := loadImage(t, img)
		assert.Equal(t, "/data/fbc", info.Root)
		assert.Equal(t, []string{"kube-green"}, c.PackageNames())
	})
	t.Run("a later layer replaces a file, an opaque folder empties the root", func(t *testing.T) {
		img := build(t, nil,
			layer(t, entry{Name: "configs/a/catalog.json", Body: `{"schema":"olm.package","name":"a"}`}),
			layer(t, entry{Name: "configs/a/catalog.json", Body: `{"schema":"olm.package","name":"b"}`}),
			layer(t, entry{Name: "configs/.wh..wh..opq"}, entry{Name: "configs/c.json", Body: `{"schema":"olm.package","name":"c"}`}),
		)
		c, _ := loadImage(t, img)
		assert.Equal(t, []string{"c"}, c.PackageNames())
	})
	t.Run("whiteout of a folder above the root", func(t *testing.T) {
		img := build(t, nil,
			layer(t, entry{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"a"}`}),
			layer(t, entry{Name: ".wh.configs"}),
			layer(t, entry{Name: "configs/b.json", Body: `{"schema":"olm.package","name":"b"}`}),
		)
		c, _ := loadImage(t, img)
		assert.Equal(t, []string{"b"}, c.PackageNames())
	})
	t.Run("links are skipped with a warning", func(t *testing.T) {
		img := build(t, nil, layer(t, entry{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"a"}`},
			entry{Name: "configs/b.json", Link: "/elsewhere/b.json"}))
		var warnings []string
		c, _ := loadImageWith(t, img, image.Options{Warn: func(s string) { warnings = append(warnings, s) }})
		assert.Equal(t, []string{"a"}, c.PackageNames())
		assert.Equal(t, []string{"/configs/b.json is a link to /elsewhere/b.json: links in a catalog image are not followed; the file is skipped"}, warnings)
	})
	t.Run("several platforms: linux/amd64 is read", func(t *testing.T) {
		amd := build(t, nil, layer(t, entry{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"amd"}`}))
		arm := build(t, nil, layer(t, entry{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"arm"}`}))
		idx := mutate.AppendManifests(empty.Index,
			mutate.IndexAddendum{Add: arm, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}}},
			mutate.IndexAddendum{Add: amd, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}})
		dir := t.TempDir()
		p, err := layout.Write(dir, empty.Index)
		require.NoError(t, err)
		require.NoError(t, p.AppendIndex(idx))
		c, _, err := load(t, dir, image.Options{})
		require.NoError(t, err)
		assert.Equal(t, []string{"amd"}, c.PackageNames())
		c, _, err = load(t, dir, image.Options{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}})
		require.NoError(t, err)
		assert.Equal(t, []string{"arm"}, c.PackageNames())
	})
}

func loadImage(t *testing.T, img v1.Image) (*catalog.Catalog, image.Info) {
	return loadImageWith(t, img, image.Options{})
}

func loadImageWith(t *testing.T, img v1.Image, opts image.Options) (*catalog.Catalog, image.Info) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "img.tar")
	ref, _ := name.ParseReference("example.com/x:v1")
	require.NoError(t, tarball.WriteToFile(path, ref, img))
	c, info, err := load(t, path, opts)
	require.NoError(t, err)
	return c, info
}

func TestImageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	ref, _ := name.ParseReference("example.com/x:v1")
	archive := func(img v1.Image) string {
		p := filepath.Join(t.TempDir(), "img.tar")
		require.NoError(t, tarball.WriteToFile(p, ref, img))
		return p
	}
	good := archive(build(t, nil, layer(t, treeEntries(t, exampleCatalog, "configs/")...)))
	goodBytes, err := os.ReadFile(good)
	require.NoError(t, err)

	var plainTar bytes.Buffer
	tw := tar.NewWriter(&plainTar)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "hello.txt", Size: 2, Mode: 0o644}))
	_, _ = tw.Write([]byte("hi"))
	require.NoError(t, tw.Close())

	tests := []struct {
		name   string
		source string
		want   []string
	}{
		{"no label, no /configs", archive(build(t, nil, layer(t, entry{Name: "usr/share/catalog/a.json", Body: "{}"}))),
			[]string{"no catalog file (.yaml, .yml, .json) under /configs (the default: the image has no operators.operatorframework.io.index.configs.v1 label)"}},
		{"label names an empty folder", archive(build(t, map[string]string{image.ConfigsLabel: "/fbc"}, layer(t, entry{Name: "configs/a.json", Body: "{}"}))),
			[]string{"no catalog file", "under /fbc (label operators.operatorframework.io.index.configs.v1)"}},
		{"root is a link", archive(build(t, nil, layer(t, entry{Name: "configs", Link: "/var/fbc"}, entry{Name: "var/fbc/a.json", Body: "{}"}))),
			[]string{"which is a link to /var/fbc: links are not followed"}},
		{"not FBC", archive(build(t, nil, layer(t, entry{Name: "configs/a.json", Body: `{"apiVersion":"v1","kind":"ConfigMap"}`}))),
			[]string{"img.tar!/configs/a.json:1 (document 0)", `blob has no "schema"`}},
		{"truncated archive", write("cut.tar", goodBytes[:len(goodBytes)/2]), []string{"cut.tar"}},
		{"random bytes", write("noise.tar", bytes.Repeat([]byte("noise"), 200)),
			[]string{"noise.tar: not a catalog file (.yaml, .yml, .json), an OCI image layout folder or a docker-archive tarball"}},
		{"a tar that is no docker archive", write("plain.tar", plainTar.Bytes()), []string{"plain.tar: not a readable docker-archive tarball", "manifest.json"}},
		{"gzip garbage", write("bad.tar.gz", append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte{1}, 100)...)), []string{"bad.tar.gz: not a readable docker-archive tarball"}},
		{"missing path", filepath.Join(dir, "nothing"), []string{"nothing: no such file or folder"}},
		{"not a reference", "Not A Ref:::", []string{"no such file or folder, and not an image reference"}},
		{"empty OCI layout", func() string {
			p, err := layout.Write(filepath.Join(dir, "empty-oci"), empty.Index)
			require.NoError(t, err)
			return string(p)
		}(), []string{"the OCI layout holds no image"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := load(t, tc.source, image.Options{})
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}

	t.Run("corrupt layer in an OCI layout", func(t *testing.T) {
		img := build(t, nil, layer(t, treeEntries(t, exampleCatalog, "configs/")...))
		oci := filepath.Join(t.TempDir(), "oci")
		p, err := layout.Write(oci, empty.Index)
		require.NoError(t, err)
		require.NoError(t, p.AppendImage(img))
		layers, err := img.Layers()
		require.NoError(t, err)
		d, err := layers[0].Digest()
		require.NoError(t, err)
		blob := filepath.Join(oci, "blobs", d.Algorithm, d.Hex)
		data, err := os.ReadFile(blob)
		require.NoError(t, err)
		data[len(data)/2] ^= 0xff
		require.NoError(t, os.WriteFile(blob, data, 0o644))
		_, _, err = load(t, oci, image.Options{})
		require.Error(t, err)
		assert.ErrorContains(t, err, "layer 1 ("+d.String()+")")
	})
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("{}"), 0o644))
	for _, tc := range []struct {
		in   string
		kind image.Kind
		ref  string
	}{
		{dir, image.KindFBC, dir},
		{filepath.Join(dir, "c.yaml"), image.KindFBC, filepath.Join(dir, "c.yaml")},
		{"quay.io/org/catalog:v4.20", image.KindRegistry, "quay.io/org/catalog:v4.20"},
		{"docker://localhost:5000/c", image.KindRegistry, "localhost:5000/c"},
		{"oci:/x/y", image.KindOCILayout, "/x/y"},
		{"docker-archive:/x/y.tar", image.KindDockerArchive, "/x/y.tar"},
	} {
		kind, ref, err := image.Detect(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.kind, kind, tc.in)
		assert.Equal(t, tc.ref, ref, tc.in)
	}
	for _, bad := range []string{"./missing", "/missing/catalog", "catalog"} {
		_, _, err := image.Detect(bad)
		assert.ErrorContains(t, err, "no such file or folder", bad)
	}
}
