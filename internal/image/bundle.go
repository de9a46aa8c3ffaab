package image

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/layered"
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

// BundlePuller reads bundle images' contents, cached by digest. Registries are untrusted:
// an image is read by the digest the catalog names, or that a tag resolves to, and its bytes
// are checked to hash to it (see fetch); the contents are cached under that digest only, and
// a cache entry is checked when it is used (see cached). Reading an image is bounded by
// Timeout and Limits (default DefaultBundleLimits), a local image as much as a registry's.
type BundlePuller struct {
	Options
	// Rewrites send references to mirrors or local images.
	Rewrites []Rewrite
	// CacheDir holds the contents read, by image digest ("" for no cache).
	CacheDir string
}

// Pull reads the contents of the bundle image ref. When ref names a digest (as catalogs
// do), the image read must be that digest's, wherever a rewrite sends it.
func (p *BundlePuller) Pull(ctx context.Context, ref string) (*catalog.Contents, PullInfo, error) {
	source, local := rewrite(ref, p.Rewrites)
	info := PullInfo{Source: source}
	want := ""
	if d, err := name.NewDigest(ref); err == nil {
		want = d.DigestStr()
	}
	ctx, cancel, timeout := p.withTimeout(ctx)
	defer cancel()
	var c *catalog.Contents
	var err error
	if local {
		c, err = p.pullLocal(ctx, source, want, &info)
	} else {
		c, err = p.pullRemote(ctx, source, want, &info)
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (timeout %s)", err, timeout)
	}
	return c, info, err
}

// pullLocal reads an OCI layout or a docker-archive that a rewrite names; it is not cached.
func (p *BundlePuller) pullLocal(ctx context.Context, source, want string, info *PullInfo) (*catalog.Contents, error) {
	img, digest, archive, err := p.localImage(ctx, source)
	if err != nil {
		return nil, err
	}
	info.Digest = digest
	if want != "" && digest != want {
		return nil, fmt.Errorf("%s holds image %s, not %s that the catalog names", source, digest, want)
	}
	return p.read(ctx, img, info, archive)
}

// pullRemote reads a registry image by digest, or its contents from the cache.
func (p *BundlePuller) pullRemote(ctx context.Context, source, want string, info *PullInfo) (*catalog.Contents, error) {
	r, err := name.ParseReference(source)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	ropts := p.remoteOptions(ctx)
	d, err := resolve(r, ropts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	info.Digest = d.DigestStr()
	if want != "" && info.Digest != want {
		return nil, fmt.Errorf("%s holds image %s, not %s that the catalog names", source, info.Digest, want)
	}
	if c, ok := p.cached(info.Digest); ok {
		info.Cached = true
		return c, nil
	}
	img, err := fetch(d, ropts)
	if err == nil {
		err = checkManifest(img, p.Limits.or(DefaultBundleLimits))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	c, err := p.read(ctx, img, info, false)
	if err != nil {
		return nil, err
	}
	if err := p.store(info.Digest, c); err != nil && p.Warn != nil {
		p.Warn(fmt.Sprintf("caching the contents of %s: %v", source, err))
	}
	return c, nil
}

// localImage opens a local image, and gives the digest of its manifest, and whether it is a
// docker-archive.
func (p *BundlePuller) localImage(ctx context.Context, source string) (v1.Image, string, bool, error) {
	kind, ref, err := Detect(source)
	if err != nil {
		return nil, "", false, err
	}
	lim := p.Limits.or(DefaultBundleLimits)
	switch kind {
	case KindOCILayout:
		img, digest, err := fromLayout(ref, p.Options)
		if err != nil {
			return nil, "", false, err
		}
		if err := checkManifest(img, lim); err != nil {
			return nil, "", false, fmt.Errorf("%s: %w", ref, err)
		}
		return img, digest, false, nil
	case KindDockerArchive:
		img, err := openArchive(ctx, ref, lim)
		if err != nil {
			return nil, "", false, err
		}
		d, err := img.Digest()
		if err != nil {
			return nil, "", false, fmt.Errorf("%s: %w", ref, err)
		}
		return img, d.String(), true, nil
	}
	return nil, "", false, fmt.Errorf("%s: not an image (an OCI layout folder or a docker-archive tarball)", source)
}

// read collects the manifests folder of an image's layers, later layers replacing or
// deleting (whiteouts) earlier files.
func (p *BundlePuller) read(ctx context.Context, img v1.Image, info *PullInfo, archive bool) (*catalog.Contents, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the image config: %w", info.Source, err)
	}
	dir := DefaultManifestsDir
	if v := cfg.Config.Labels[ManifestsLabel]; v != "" {
		dir = v
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	sink := manifestsSink{files: layered.New[[]byte]()}
	ir := &imageReader{ctx: ctx, source: info.Source, noun: "bundle image", rootRel: dir,
		lim: p.Limits.or(DefaultBundleLimits), opts: p.Options, sink: sink, archive: archive}
	err = ir.read(img)
	info.Bytes = ir.layerBytes
	if err != nil {
		return nil, err
	}
	files := sink.files.Files()
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no manifest file (.yaml, .yml, .json) under /%s (label %s)", info.Source, dir, ManifestsLabel)
	}
	list := make([]fbc.ManifestFile, 0, len(files))
	for _, f := range files {
		list = append(list, fbc.ManifestFile{Name: f.Path, Data: f.Value})
	}
	c, err := fbc.ContentsFromManifests(list)
	if err != nil {
		return nil, fmt.Errorf("%s: /%s: %w", info.Source, dir, err)
	}
	return c, nil
}
