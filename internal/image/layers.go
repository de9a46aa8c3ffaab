package image

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/layered"
)

// layerSink receives the files under an image's folder (a catalog's root, a bundle's
// manifests), layer by layer: a fbc.Tree, or a bundle's manifests.
type layerSink interface {
	// Wants tells whether the file is read (the others are skipped unread).
	Wants(rel string) bool
	Put(rel string, r io.Reader) error
	Delete(rel string)
	DeleteBelow(dir string)
	NextLayer()
}

// imageReader reads the layers of one image for the files under one folder, as streams
// (nothing is extracted to disk), within the image's limits and its context. Every byte is
// counted as it is read, and the deadline is checked at every read, so that neither a
// decompression bomb nor a slow local image outlasts them; nothing costs more than the
// entries and bytes read (whiteouts go to the sink, which records them, see
// layered.Files).
type imageReader struct {
	ctx     context.Context
	source  string // the image, for errors
	noun    string // "catalog image", "bundle image", for warnings
	rootRel string // the folder, relative to the image's root ("" for all of it)
	lim     Limits
	opts    Options // OnRead, Warn
	sink    layerSink
	// archive is set for a docker-archive, whose layers are named by their DiffIDs (their
	// digests would cost compressing them)
	archive bool

	entries               int
	layerBytes, fileBytes int64
	rootLink              string // the target of a link at the folder, if any
}

// read reads the image's layers in order.
func (ir *imageReader) read(img v1.Image) error {
	layers, err := img.Layers()
	if err != nil {
		return fmt.Errorf("%s: %w", ir.source, err)
	}
	if len(layers) > ir.lim.MaxLayers {
		return fmt.Errorf("%s: %d layers: %w", ir.source, len(layers), &LimitError{What: "layers", Limit: int64(ir.lim.MaxLayers), Field: "MaxLayers"})
	}
	names := layerNames(img, len(layers), ir.archive)
	for i, l := range layers {
		if err := ir.readLayer(l); err != nil {
			return fmt.Errorf("%s: %s: %w", ir.source, names[i], err)
		}
		ir.sink.NextLayer()
	}
	return nil
}

// layerNames are "layer N (digest)": the digests of the manifest, or for a docker-archive
// the DiffIDs of the config; "layer N" alone when they cannot be had.
func layerNames(img v1.Image, n int, archive bool) []string {
	var ids []string
	if archive {
		if cfg, err := img.ConfigFile(); err == nil {
			for _, d := range cfg.RootFS.DiffIDs {
				ids = append(ids, "diff ID "+d.String())
			}
		}
	} else if m, err := img.Manifest(); err == nil {
		for _, l := range m.Layers {
			ids = append(ids, l.Digest.String())
		}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("layer %d", i+1)
		if len(ids) == n {
			names[i] += " (" + ids[i] + ")"
		}
	}
	return names
}

// readLayer reads one layer's tar stream, to its end: a registry layer's digest is checked
// there, and bytes after the tar count too.
func (ir *imageReader) readLayer(l v1.Layer) error {
	rc, err := l.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	var r io.Reader = &guard{ctx: ir.ctx, r: rc, used: &ir.layerBytes, max: ir.lim.MaxImageBytes, err: func() error {
		return &LimitError{What: "of layers, uncompressed", Limit: ir.lim.MaxImageBytes, Bytes: true, Field: "MaxImageBytes"}
	}}
	if ir.opts.OnRead != nil {
		r = &countingReader{r: r, on: ir.opts.OnRead}
	}
	tr := tar.NewReader(r)
	current := "" // the entry read, whose data the next header skips
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return streamError(current, err)
		}
		p := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		current = "/" + p
		if ir.entries++; ir.entries > ir.lim.MaxFiles {
			return fmt.Errorf("%s: %w", current, &LimitError{What: "tar entries", Limit: int64(ir.lim.MaxFiles), Field: "MaxFiles"})
		}
		if err := ir.entry(tr, h, p); err != nil {
			return err
		}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return streamError("after the end of its tar", err)
	}
	return nil
}

// streamError is an error of the layer's stream, while at where: a limit, the deadline, or
// a corrupt stream.
func streamError(where string, err error) error {
	var le *LimitError
	if !errors.As(err, &le) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("corrupt tar stream: %w", err)
	}
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}

// entry handles one tar entry at p (clean, relative to the image's root): a whiteout, a
// file under the folder, or a link.
func (ir *imageReader) entry(tr *tar.Reader, h *tar.Header, p string) error {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == ".wh..wh..opq":
		if rel, ok := ir.under(dir); ok {
			ir.sink.DeleteBelow(rel)
		} else if ir.above(dir) {
			ir.sink.DeleteBelow("")
		}
		return nil
	case strings.HasPrefix(base, ".wh."):
		target := path.Join(dir, strings.TrimPrefix(base, ".wh."))
		if rel, ok := ir.under(target); ok {
			ir.sink.Delete(rel)
		} else if ir.above(target) {
			ir.sink.Delete("")
		}
		return nil
	}
	rel, ok := ir.under(p)
	if !ok {
		return nil
	}
	switch h.Typeflag {
	case tar.TypeReg: // archive/tar reads the legacy TypeRegA as TypeReg (or TypeDir)
		if rel != "" && ir.sink.Wants(rel) {
			return ir.put(tr, h, "/"+p, rel)
		}
	case tar.TypeSymlink, tar.TypeLink:
		if rel == "" {
			ir.rootLink = h.Linkname
		} else if ir.opts.Warn != nil && ir.sink.Wants(rel) {
			ir.opts.Warn(fmt.Sprintf("/%s is a link to %s: links in a %s are not followed; the file is skipped", p, h.Linkname, ir.noun))
		}
	}
	return nil
}

// put hands a file to the sink, read within the limits of one file and of all files.
func (ir *imageReader) put(tr *tar.Reader, h *tar.Header, name, rel string) error {
	fileLimit := func() error {
		return &LimitError{What: "in one file", Limit: ir.lim.MaxFileBytes, Bytes: true, Field: "MaxFileBytes"}
	}
	if h.Size > ir.lim.MaxFileBytes {
		return fmt.Errorf("%s: %w", name, fileLimit())
	}
	var used int64
	r := &guard{ctx: ir.ctx, r: tr, used: &used, max: ir.lim.MaxFileBytes, err: fileLimit}
	all := &guard{ctx: ir.ctx, r: r, used: &ir.fileBytes, max: ir.lim.MaxReadBytes, err: func() error {
		return &LimitError{What: "of files read", Limit: ir.lim.MaxReadBytes, Bytes: true, Field: "MaxReadBytes"}
	}}
	if err := ir.sink.Put(rel, all); err != nil {
		return streamError(name, err)
	}
	return nil
}

// under tells whether p is the folder or below it, and where.
func (ir *imageReader) under(p string) (string, bool) {
	switch {
	case ir.rootRel == "":
		return p, true
	case p == ir.rootRel:
		return "", true
	case strings.HasPrefix(p, ir.rootRel+"/"):
		return p[len(ir.rootRel)+1:], true
	}
	return "", false
}

// above tells whether p is a folder holding the folder.
func (ir *imageReader) above(p string) bool {
	return p == "" || strings.HasPrefix(ir.rootRel+"/", p+"/")
}

// treeSink is a fbc.Tree: it wants catalog files and .indexignore files.
type treeSink struct{ *fbc.Tree }

func (treeSink) Wants(rel string) bool { return catalogFile(rel) || path.Base(rel) == ".indexignore" }

// manifestsSink collects a bundle's manifest files; they are held in memory (within the
// limits) until every layer is read.
type manifestsSink struct {
	files *layered.Files[[]byte]
}

func (manifestsSink) Wants(rel string) bool { return catalogFile(rel) }

func (s manifestsSink) Put(rel string, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.files.Put(rel, data)
	return nil
}

func (s manifestsSink) Delete(rel string)      { s.files.Delete(rel) }
func (s manifestsSink) DeleteBelow(dir string) { s.files.DeleteBelow(dir) }
func (s manifestsSink) NextLayer()             { s.files.NextLayer() }

func catalogFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

type countingReader struct {
	r  io.Reader
	on func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.on(int64(n))
	}
	return n, err
}
