package testtools

import (
	"archive/tar"
	"bytes"
	"io"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/odlm-render/odlm-render/internal/testfixture"
)

// BundleImage builds the registry+v1 image of a bundle folder (internal/testfixture's: its
// manifests/ and metadata/ in one layer, with the labels operator-sdk's bundle.Dockerfile
// sets), then the extra layers. The same folder always gives the same image digest.
func BundleImage(t testing.TB, dir, pkg string, extra ...v1.Layer) v1.Image {
	t.Helper()
	img, err := testfixture.BundleImage(dir, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) == 0 {
		return img
	}
	if img, err = mutate.AppendLayers(img, extra...); err != nil {
		t.Fatal(err)
	}
	return img
}

// TarEntry is a regular file of a test layer, or a symbolic link when Link is set.
type TarEntry struct {
	Name, Body, Link string
}

// Layer is an uncompressed layer of the entries, in order, with zero times.
func Layer(t testing.TB, entries ...TarEntry) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	writeEntries(t, tw, entries)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return layerOf(t, buf.Bytes())
}

func writeEntries(t testing.TB, tw *tar.Writer, entries []TarEntry) {
	t.Helper()
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: 0o644, Size: int64(len(e.Body)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
		if e.Link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.Link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
}

// layerOf is the layer of an uncompressed tar stream.
func layerOf(t testing.TB, data []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}
