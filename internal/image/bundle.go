package image

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Bundle images (registry+v1): the manifests folder, named by the image label
// operators.operatorframework.io.bundle.manifests.v1 (default manifests/), holds the CSV,
// the CRDs and the other objects OLM installs.
const (
	// ManifestsLabel names the manifests folder of a bundle image.
	ManifestsLabel = "operators.operatorframework.io.bundle.manifests.v1"
	// DefaultManifestsDir is the manifests folder of an image without ManifestsLabel.
	DefaultManifestsDir = "manifests/"
	// maxManifestBytes bounds what a bundle's manifests may hold in memory.
	maxManifestBytes = 256 << 20
)

// Rewrite says where to read images from instead of where their references point: From is
// an image reference or a prefix of one (a registry host, a repository); To is the prefix
// that replaces it (a mirror), or a local image (oci:DIR, docker-archive:FILE, or a path)
// that stands for exactly the image From names.
type Rewrite struct {
	From, To string
}

// ParseRewrite reads FROM=TO.
func ParseRewrite(s string) (Rewrite, error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" {
		return Rewrite{}, fmt.Errorf("%q: expected FROM=TO (an image reference or prefix, and a mirror prefix or a local image such as oci:DIR)", s)
	}
	return Rewrite{From: from, To: to}, nil
}

// rewrite applies the longest matching rule to ref: the source to read, and whether it is a
// local image.
func rewrite(ref string, rules []Rewrite) (string, bool) {
	best := -1
	for i, r := range rules {
		if ref != r.From && !strings.HasPrefix(ref, r.From+"/") && !strings.HasPrefix(ref, r.From+":") && !strings.HasPrefix(ref, r.From+"@") {
			continue
		}
		if best < 0 || len(r.From) > len(rules[best].From) {
			best = i
		}
	}
	if best < 0 {
		return ref, false
	}
	r := rules[best]
	if kind, _, err := Detect(r.To); err == nil && kind != KindRegistry && kind != KindFBC {
		if ref != r.From {
			return ref, false // a local image stands for one reference only
		}
		return r.To, true
	}
	return r.To + strings.TrimPrefix(ref, r.From), false
}

// PullInfo says what a bundle pull read.
type PullInfo struct {
	// Source is what was read (the reference, rewritten; or a local image).
	Source string
	// Digest is the image manifest digest.
	Digest string
	// Cached is set when the contents came from the cache.
	Cached bool
	// Bytes counts the layer bytes read.
	Bytes int64
}

// BundlePuller reads bundle images' contents, cached by digest.
type BundlePuller struct {
	Options
	// Rewrites send references to mirrors or local images.
	Rewrites []Rewrite
	// CacheDir holds the contents read, by image digest ("" for no cache).
	CacheDir string
}

// Pull reads the contents of the bundle image ref.
func (p *BundlePuller) Pull(ctx context.Context, ref string) (*catalog.Contents, PullInfo, error) {
	source, local := rewrite(ref, p.Rewrites)
	info := PullInfo{Source: source}
	want := ""
	if d, err := name.NewDigest(ref); err == nil {
		want = d.DigestStr()
	}
	if local {
		img, digest, err := p.localImage(source)
		if err != nil {
			return nil, info, err
		}
		info.Digest = digest
		if want != "" && digest != want {
			return nil, info, fmt.Errorf("%s holds image %s, not %s that the catalog names", source, digest, want)
		}
		c, err := p.read(ctx, img, &info)
		return c, info, err
	}
	ctx, cancel, _ := p.withTimeout(ctx)
	defer cancel()
	r, err := name.ParseReference(source)
	if err != nil {
		return nil, info, fmt.Errorf("%s: %w", source, err)
	}
	ropts := p.remoteOptions(ctx)
	digest := want
	if d, ok := r.(name.Digest); ok {
		digest = d.DigestStr()
	}
	if digest == "" {
		desc, err := remote.Head(r, ropts...)
		if err != nil {
			return nil, info, fmt.Errorf("%s: %w", source, err)
		}
		digest = desc.Digest.String()
	}
	info.Digest = digest
	if c, ok := p.cached(digest); ok {
		info.Cached = true
		return c, info, nil
	}
	img, err := remote.Image(r, ropts...)
	if err != nil {
		return nil, info, fmt.Errorf("%s: %w", source, err)
	}
	// a digest reference is verified by the client as it reads the manifest
	c, err := p.read(ctx, img, &info)
	if err != nil {
		return nil, info, err
	}
	if err := p.store(digest, c); err != nil && p.Warn != nil {
		p.Warn(fmt.Sprintf("caching the contents of %s: %v", ref, err))
	}
	return c, info, nil
}

func (p *BundlePuller) localImage(source string) (v1.Image, string, error) {
	kind, ref, err := Detect(source)
	if err != nil {
		return nil, "", err
	}
	switch kind {
	case KindOCILayout:
		return fromLayout(ref, p.Options)
	case KindDockerArchive:
		img, err := tarball.Image(archiveOpener(ref), nil)
		if err != nil {
			return nil, "", fmt.Errorf("%s: not a readable docker-archive tarball: %w", ref, err)
		}
		d, err := img.Digest()
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", ref, err)
		}
		return img, d.String(), nil
	}
	return nil, "", fmt.Errorf("%s: not an image (an OCI layout folder or a docker-archive tarball)", source)
}

// read collects the manifests folder of an image's layers, later layers replacing or
// deleting (whiteouts) earlier files.
func (p *BundlePuller) read(ctx context.Context, img v1.Image, info *PullInfo) (*catalog.Contents, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the image config: %w", info.Source, err)
	}
	dir := DefaultManifestsDir
	if v := cfg.Config.Labels[ManifestsLabel]; v != "" {
		dir = v
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	layers, err := img.Layers()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", info.Source, err)
	}
	files := map[string][]byte{}
	var total int64
	for i, l := range layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := p.readBundleLayer(l, dir, files, &total); err != nil {
			return nil, fmt.Errorf("%s: layer %d: %w", info.Source, i+1, err)
		}
	}
	info.Bytes = total
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no manifest file (.yaml, .yml, .json) under /%s (label %s)", info.Source, dir, ManifestsLabel)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	list := make([]catalog.ManifestFile, 0, len(names))
	for _, n := range names {
		list = append(list, catalog.ManifestFile{Name: n, Data: files[n]})
	}
	c, err := catalog.ContentsFromManifests(list)
	if err != nil {
		return nil, fmt.Errorf("%s: /%s: %w", info.Source, dir, err)
	}
	return c, nil
}

func (p *BundlePuller) readBundleLayer(l v1.Layer, dir string, files map[string][]byte, total *int64) error {
	rc, err := l.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	var r io.Reader = rc
	if p.OnRead != nil {
		r = &countingReader{r: rc, on: p.OnRead}
	}
	tr := tar.NewReader(r)
	under := func(q string) (string, bool) {
		if q == dir {
			return "", true
		}
		rel, ok := strings.CutPrefix(q, dir+"/")
		return rel, ok
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("corrupt tar stream: %w", err)
		}
		q := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		parent, base := path.Split(q)
		parent = strings.TrimSuffix(parent, "/")
		switch {
		case base == ".wh..wh..opq":
			if rel, ok := under(parent); ok {
				for n := range files {
					if rel == "" || strings.HasPrefix(n, rel+"/") {
						delete(files, n)
					}
				}
			}
			continue
		case strings.HasPrefix(base, ".wh."):
			if rel, ok := under(path.Join(parent, strings.TrimPrefix(base, ".wh."))); ok {
				for n := range files {
					if n == rel || strings.HasPrefix(n, rel+"/") || rel == "" {
						delete(files, n)
					}
				}
			}
			continue
		}
		rel, ok := under(q)
		if !ok || rel == "" || (h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA) || !catalogFile(rel) {
			continue
		}
		*total += h.Size
		if *total > maxManifestBytes {
			return fmt.Errorf("the manifests are larger than %d MiB", maxManifestBytes>>20)
		}
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, tr); err != nil {
			return fmt.Errorf("corrupt tar stream: %s: %w", q, err)
		}
		files[rel] = buf.Bytes()
	}
	// read to the end: the layer's digest is checked there
	_, err = io.Copy(io.Discard, r)
	return err
}

// cacheFile is where the contents of an image digest are kept.
func (p *BundlePuller) cacheFile(digest string) string {
	if p.CacheDir == "" || !strings.HasPrefix(digest, "sha256:") {
		return ""
	}
	return filepath.Join(p.CacheDir, "sha256-"+strings.TrimPrefix(digest, "sha256:")+".json")
}

func (p *BundlePuller) cached(digest string) (*catalog.Contents, bool) {
	f := p.cacheFile(digest)
	if f == "" {
		return nil, false
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, false
	}
	var c catalog.Contents
	if err := json.Unmarshal(data, &c); err != nil {
		if p.Warn != nil {
			p.Warn(fmt.Sprintf("%s: unreadable cache entry, reading the image again: %v", f, err))
		}
		return nil, false
	}
	return &c, true
}

func (p *BundlePuller) store(digest string, c *catalog.Contents) error {
	f := p.cacheFile(digest)
	if f == "" {
		return nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), f)
}
