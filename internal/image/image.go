// Package image reads OLM catalogs from where they are published: a
// file-based catalog (FBC) folder or file (or a CatalogSnapshot), an OCI
// image layout folder, a docker-archive tarball (`docker save`), or a
// catalog image in a registry.
//
// A catalog image holds its FBC under the folder named by its config label
// operators.operatorframework.io.index.configs.v1 (default /configs). Its
// layers are read in order, each once, as streams (never extracted to disk,
// never held in memory): the catalog files under that folder go to a
// fbc.Tree, which decodes them as they arrive, lets later layers replace
// or delete (whiteouts) earlier files, and adds what is left to the Builder.
//
// What it must not do: write to disk, pull anything but the one image asked
// for, or send credentials anywhere but that image's registry (the default
// keychain: docker config, credential helpers).
//
// Images are untrusted (odlm-render also runs as an Argo CD plugin shared by
// tenants, and whoever runs a registry or writes an archive chose its bytes):
// a registry image is read by digest and its manifest checked against it
// (remote.go), a docker-archive's metadata is bounded before it is read
// (archive.go), and every read of an image, local or not, stops at the
// timeout and at its Limits (limits.go, layers.go).
package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// ConfigsLabel is the image label naming the folder of the FBC.
const ConfigsLabel = "operators.operatorframework.io.index.configs.v1"

// DefaultConfigsDir is the FBC folder of an image without ConfigsLabel.
const DefaultConfigsDir = "/configs"

// Kind is the kind of a catalog source.
type Kind string

// Kinds of sources.
const (
	KindFBC           Kind = "fbc" // a folder or file of FBC blobs, or a CatalogSnapshot
	KindOCILayout     Kind = "oci-layout"
	KindDockerArchive Kind = "docker-archive"
	KindRegistry      Kind = "registry"
)

// Options tunes Load.
type Options struct {
	// Timeout bounds reading an image, from a registry or a local one (default
	// DefaultTimeout).
	Timeout time.Duration
	// Keychain gives registry credentials (default authn.DefaultKeychain:
	// the docker config and its credential helpers; anonymous otherwise).
	Keychain authn.Keychain
	// Remote are more options for registry requests (a transport…).
	Remote []remote.Option
	// Platform picks the image of a multi-platform index (default
	// linux/amd64; catalogs hold the same FBC for every platform).
	Platform *v1.Platform
	// OnRead is called with the number of bytes read, as they are read
	// (image layers uncompressed), for progress reports.
	OnRead func(n int64)
	// Warn receives warnings (links skipped, an index with several images…).
	Warn func(msg string)
	// Limits bound what an image may cost to read; zero fields take the defaults
	// (DefaultCatalogLimits for Load, DefaultBundleLimits for a BundlePuller).
	Limits Limits
}

// DefaultTimeout bounds reading an image.
const DefaultTimeout = 10 * time.Minute

// Info says what a source turned out to be.
type Info struct {
	Kind Kind
	// Ref is the source as given.
	Ref string
	// Digest is the image manifest digest (registry and OCI layout).
	Digest string
	// ImageID is the digest of the image config (images).
	ImageID string
	// Root is the FBC folder in the image.
	Root string
	// Files counts the catalog files read from the image.
	Files int
}

// SnapshotSource is what a snapshot extracted from the source records.
func (i Info) SnapshotSource() fbc.SnapshotSource {
	return fbc.SnapshotSource{Type: string(i.Kind), Ref: i.Ref, Digest: i.Digest, ImageID: i.ImageID}
}

// Detect tells what kind of source s is, and the path or reference it names
// (without a "docker://", "oci:" or "docker-archive:" prefix). A path that
// exists wins over an image reference.
func Detect(s string) (Kind, string, error) {
	switch {
	case strings.HasPrefix(s, "docker://"):
		return KindRegistry, strings.TrimPrefix(s, "docker://"), nil
	case strings.HasPrefix(s, "oci:"):
		return KindOCILayout, strings.TrimPrefix(s, "oci:"), nil
	case strings.HasPrefix(s, "docker-archive:"):
		return KindDockerArchive, strings.TrimPrefix(s, "docker-archive:"), nil
	}
	fi, err := os.Stat(s)
	switch {
	case err == nil && fi.IsDir():
		if _, err := os.Stat(filepath.Join(s, "oci-layout")); err == nil {
			return KindOCILayout, s, nil
		}
		return KindFBC, s, nil
	case err == nil:
		switch strings.ToLower(filepath.Ext(s)) {
		case ".yaml", ".yml", ".json":
			return KindFBC, s, nil
		}
		if isArchive(s) {
			return KindDockerArchive, s, nil
		}
		return "", s, fmt.Errorf("%s: not a catalog file (.yaml, .yml, .json), an OCI image layout folder or a docker-archive tarball", s)
	case !errors.Is(err, os.ErrNotExist):
		return "", s, err
	}
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") ||
		!strings.ContainsAny(s, "/:@") {
		return "", s, fmt.Errorf("%s: no such file or folder", s)
	}
	if _, perr := name.ParseReference(s); perr != nil {
		return "", s, fmt.Errorf("%s: no such file or folder, and not an image reference: %w", s, perr)
	}
	return KindRegistry, s, nil
}

// isArchive sniffs a tar (ustar magic) or gzip stream.
func isArchive(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if n >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return true
	}
	return n >= 262 && string(head[257:262]) == "ustar"
}

// Load reads the catalog of source into b (source as for Detect). Reading an image is
// bounded by opts.Timeout and opts.Limits, a local image as much as a registry's.
func Load(ctx context.Context, source string, b *fbc.Builder, opts Options) (Info, error) {
	kind, ref, err := Detect(source)
	if err != nil {
		return Info{}, err
	}
	info := Info{Kind: kind, Ref: source}
	if kind == KindFBC {
		return info, b.AddPath(ref)
	}
	ctx, cancel, timeout := opts.withTimeout(ctx)
	defer cancel()
	info, err = loadKind(ctx, kind, ref, source, b, opts, info)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (timeout %s)", err, timeout)
	}
	return info, err
}

// loadKind opens the image of a source of an image kind, and reads it.
func loadKind(ctx context.Context, kind Kind, ref, source string, b *fbc.Builder, opts Options, info Info) (Info, error) {
	lim := opts.Limits.or(DefaultCatalogLimits)
	switch kind {
	case KindOCILayout:
		img, digest, err := fromLayout(ref, opts)
		if err != nil {
			return info, err
		}
		if err := checkManifest(img, lim); err != nil {
			return info, fmt.Errorf("%s: %w", ref, err)
		}
		info.Digest = digest
		return loadImage(ctx, img, source, b, opts, info, false)
	case KindDockerArchive:
		img, err := openArchive(ctx, ref, lim)
		if err != nil {
			return info, err
		}
		return loadImage(ctx, img, source, b, opts, info, true)
	}
	img, _, err := opts.remoteImage(ctx, ref)
	if err == nil {
		err = checkManifest(img, lim)
	}
	if err != nil {
		return info, fmt.Errorf("%s: %w", ref, err)
	}
	if d, err := img.Digest(); err == nil {
		info.Digest = d.String()
	}
	return loadImage(ctx, img, source, b, opts, info, false)
}

// withTimeout bounds reading an image by Timeout (default DefaultTimeout).
func (opts Options) withTimeout(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, timeout
}

// remoteOptions are the registry options of every read: the context, the keychain (default
// the docker config and its helpers), the platform, and Remote.
func (opts Options) remoteOptions(ctx context.Context) []remote.Option {
	keychain := opts.Keychain
	if keychain == nil {
		keychain = authn.DefaultKeychain
	}
	return append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain), remote.WithPlatform(platform(opts))}, opts.Remote...)
}

func platform(opts Options) v1.Platform {
	if opts.Platform != nil {
		return *opts.Platform
	}
	return v1.Platform{OS: "linux", Architecture: "amd64"}
}

// fromLayout picks the image of an OCI layout: the only one, else the one
// for the platform.
func fromLayout(dir string, opts Options) (v1.Image, string, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%s: not a readable OCI image layout: %w", dir, err)
	}
	for depth := 0; depth < 4; depth++ {
		m, err := idx.IndexManifest()
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", dir, err)
		}
		if len(m.Manifests) == 0 {
			return nil, "", fmt.Errorf("%s: the OCI layout holds no image", dir)
		}
		want := platform(opts)
		chosen := m.Manifests[0]
		if len(m.Manifests) > 1 {
			found := false
			for _, d := range m.Manifests {
				if d.Platform != nil && d.Platform.Satisfies(want) {
					chosen, found = d, true
					break
				}
			}
			if !found && opts.Warn != nil {
				opts.Warn(fmt.Sprintf("%s: %d images and none for %s: reading the first, %s", dir, len(m.Manifests), want.String(), chosen.Digest))
			}
		}
		if err := checkLayoutBlob(dir, chosen.Digest); err != nil {
			return nil, "", err
		}
		switch {
		case chosen.MediaType.IsIndex():
			if idx, err = idx.ImageIndex(chosen.Digest); err != nil {
				return nil, "", fmt.Errorf("%s: %w", dir, err)
			}
		default:
			img, err := idx.Image(chosen.Digest)
			if err == nil {
				err = checkDigest(img, chosen.Digest)
			}
			if err != nil {
				return nil, "", fmt.Errorf("%s: %w", dir, err)
			}
			return img, chosen.Digest.String(), nil
		}
	}
	return nil, "", fmt.Errorf("%s: image indexes nested too deep", dir)
}

// checkLayoutBlob refuses a manifest blob of an OCI layout larger than maxManifestBytes
// before it is read into memory.
func checkLayoutBlob(dir string, d v1.Hash) error {
	fi, err := os.Stat(filepath.Join(dir, "blobs", d.Algorithm, d.Hex))
	if err != nil || fi.Size() <= maxManifestBytes {
		return nil // reading it says what is wrong
	}
	return fmt.Errorf("%s: %s: %w", dir, d, &LimitError{What: "in an image manifest", Limit: maxManifestBytes, Bytes: true})
}

// checkDigest checks that an image's manifest hashes to the digest that named it: the
// digest a bundle's catalog names is then the image read.
func checkDigest(img v1.Image, d v1.Hash) error {
	raw, err := img.RawManifest()
	if err != nil {
		return err
	}
	if got := "sha256:" + sha256Hex(raw); got != d.String() {
		return fmt.Errorf("the manifest of image %s hashes to %s", d, got)
	}
	return nil
}

// loadImage streams the image's layers into a fbc.Tree.
func loadImage(ctx context.Context, img v1.Image, source string, b *fbc.Builder, opts Options, info Info, archive bool) (Info, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return info, fmt.Errorf("%s: reading the image config: %w", source, err)
	}
	if id, err := img.ConfigName(); err == nil {
		info.ImageID = id.String()
	}
	root, fromLabel := DefaultConfigsDir, false
	if v := cfg.Config.Labels[ConfigsLabel]; v != "" {
		root, fromLabel = v, true
	}
	info.Root = path.Clean("/" + root)
	tree := b.NewTree(source + "!" + strings.TrimSuffix(info.Root, "/") + "/")
	defer tree.Close()
	ir := &imageReader{ctx: ctx, source: source, noun: "catalog image", rootRel: strings.TrimPrefix(info.Root, "/"),
		lim: opts.Limits.or(DefaultCatalogLimits), opts: opts, sink: treeSink{tree}, archive: archive}
	if err := ir.read(img); err != nil {
		return info, err
	}
	info.Files = tree.Len()
	if info.Files == 0 {
		where := fmt.Sprintf("%s (the default: the image has no %s label)", info.Root, ConfigsLabel)
		if fromLabel {
			where = fmt.Sprintf("%s (label %s)", info.Root, ConfigsLabel)
		}
		if ir.rootLink != "" {
			where += fmt.Sprintf(", which is a link to %s: links are not followed", ir.rootLink)
		}
		return info, fmt.Errorf("%s: no catalog file (.yaml, .yml, .json) under %s", source, where)
	}
	return info, tree.Commit()
}
