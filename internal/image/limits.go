package image

import (
	"context"
	"fmt"
	"io"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// Limits bound what reading one image may cost. Images are untrusted (whoever runs the
// registry, or wrote the OCI layout or the archive, chose them) and a few kilobytes of
// gzip decompress to gigabytes, so every read is bounded: an image past a limit is an
// error naming the image, the layer, the file and the limit. A zero field takes the
// default for what is read (DefaultCatalogLimits or DefaultBundleLimits).
type Limits struct {
	// MaxLayers bounds the layers of an image.
	MaxLayers int
	// MaxFiles bounds the tar entries of an image's layers, all together: files, folders,
	// links and whiteouts, read or skipped (each costs work).
	MaxFiles int
	// MaxFileBytes bounds one file read from an image, uncompressed: a catalog file, a
	// bundle manifest.
	MaxFileBytes int64
	// MaxReadBytes bounds the files read from an image, all together (a sparse file is
	// larger than its bytes in the layer): the catalog files decoded, the bundle manifests
	// held in memory and decoded.
	MaxReadBytes int64
	// MaxImageBytes bounds the bytes of an image's layers, uncompressed, all together.
	MaxImageBytes int64
}

// The default limits. Catalog images are streamed (a catalog file is decoded as it is read,
// never held whole), hold a base image besides the catalog, and the largest real ones hold a
// few hundred megabytes of catalog: their limits are wide, and the timeout bounds the rest.
// A bundle's manifests are held in memory and decoded, several bundles at once, and decoding
// YAML costs about twenty times its size in memory (an 8 MiB manifest, 200 MB and seconds of
// CPU): no Kubernetes object is larger than the 1.5 MiB etcd stores, and OLM unpacks a
// bundle into a ConfigMap of at most 1 MiB (compressed), so their limits are a few times
// what a real bundle can hold.
const (
	DefaultMaxLayers            = 128
	DefaultMaxCatalogFiles      = 1_000_000
	DefaultMaxCatalogFileBytes  = 1 << 30
	DefaultMaxCatalogReadBytes  = 8 << 30
	DefaultMaxCatalogImageBytes = 8 << 30
	DefaultMaxBundleFiles       = 100_000
	DefaultMaxBundleFileBytes   = 8 << 20
	DefaultMaxBundleReadBytes   = 64 << 20
	DefaultMaxBundleImageBytes  = 256 << 20
)

// DefaultCatalogLimits and DefaultBundleLimits are the limits of catalog and bundle images.
var (
	DefaultCatalogLimits = Limits{MaxLayers: DefaultMaxLayers, MaxFiles: DefaultMaxCatalogFiles,
		MaxFileBytes: DefaultMaxCatalogFileBytes, MaxReadBytes: DefaultMaxCatalogReadBytes, MaxImageBytes: DefaultMaxCatalogImageBytes}
	DefaultBundleLimits = Limits{MaxLayers: DefaultMaxLayers, MaxFiles: DefaultMaxBundleFiles,
		MaxFileBytes: DefaultMaxBundleFileBytes, MaxReadBytes: DefaultMaxBundleReadBytes, MaxImageBytes: DefaultMaxBundleImageBytes}
)

// Fixed bounds on an image's metadata, which is small: a config is a few kilobytes, a
// manifest or a docker-archive's manifest.json a few
// hundred bytes per layer.
const (
	maxConfigBytes   = 8 << 20
	maxManifestBytes = 4 << 20
)

// or fills the zero fields of l from d.
func (l Limits) or(d Limits) Limits {
	if l.MaxLayers <= 0 {
		l.MaxLayers = d.MaxLayers
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxReadBytes <= 0 {
		l.MaxReadBytes = d.MaxReadBytes
	}
	if l.MaxImageBytes <= 0 {
		l.MaxImageBytes = d.MaxImageBytes
	}
	return l
}

// LimitError says that an image went past one of its Limits. The callers wrap it with the
// image, the layer and the file.
type LimitError struct {
	// What went past the limit: "layers", "tar entries", "in one file"…
	What string
	// Limit is the limit, a count or (Bytes) a number of bytes.
	Limit int64
	Bytes bool
	// Field is the Limits field that sets it; "" for a fixed limit.
	Field string
}

func (e *LimitError) Error() string {
	limit := "a fixed limit"
	if e.Field != "" {
		limit = "limit Limits." + e.Field
	}
	return fmt.Sprintf("more than %s %s (%s)", quantity(e.Limit, e.Bytes), e.What, limit)
}

// quantity writes n, in MiB or GiB when it counts bytes.
func quantity(n int64, bytes bool) string {
	if !bytes {
		return fmt.Sprint(n)
	}
	return fileread.ByteSize(n)
}

// guard counts the bytes read from r against a budget shared by every reader of one image,
// and stops at the budget or when ctx ends: a decompression bomb ends at the limit, and the
// deadline holds inside a layer and inside a file, not only between them.
type guard struct {
	ctx  context.Context
	r    io.Reader
	used *int64
	max  int64
	err  func() error // the error past the budget
}

func (g *guard) Read(p []byte) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	if *g.used > g.max {
		return 0, g.err()
	}
	// read at most one byte past the budget: enough to know it is passed
	if room := g.max - *g.used + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := g.r.Read(p)
	*g.used += int64(n)
	if *g.used > g.max {
		return n, g.err()
	}
	return n, err
}
