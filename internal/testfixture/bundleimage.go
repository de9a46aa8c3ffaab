package testfixture

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// BundleImage builds the registry+v1 image of a bundle folder: its manifests/ and metadata/
// in one uncompressed layer (files in lexical order, mode 0644, zero times), with the labels
// operator-sdk's bundle.Dockerfile sets, pkg the package label. The same folder always gives
// the same image digest (the one testtools.BundleImage gives).
func BundleImage(dir, pkg string) (v1.Image, error) {
	layer, err := bundleLayer(dir)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1": "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":  "metadata/",
		"operators.operatorframework.io.bundle.package.v1":   pkg,
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
	}
	return img, nil
}

// bundleLayer is the tar of dir's manifests/ and metadata/ files.
func bundleLayer(dir string) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, sub := range []string{"manifests", "metadata"} {
		if err := addFolder(tw, filepath.Join(dir, sub), sub); err != nil {
			return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
	}
	data := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		return nil, fmt.Errorf("bundle image of %s: %w", dir, err)
	}
	return layer, nil
}

// addFolder writes every file under root to tw as prefix/<path under root>.
func addFolder(tw *tar.Writer, root, prefix string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: prefix + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)),
			Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		_, err = tw.Write(data)
		return err
	})
}
