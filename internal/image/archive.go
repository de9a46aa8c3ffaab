package image

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// A docker-archive (`docker save`, maybe gzipped) is read by go-containerregistry, which
// opens the archive again from its start for each file it needs (its manifest.json, the
// config, each layer) and reads the manifest and the config into memory whole. A hostile
// archive could make that cost anything, so before go-containerregistry sees it the archive
// is scanned once here, its metadata bounded; then every read of it goes through the image's
// context and a budget of archiveReads(MaxImageBytes) bytes. A plain tar is seekable, and
// tar readers skip what they do not need by seeking, so its budget goes to the files read;
// a gzipped one is decompressed from its start each time.

// archiveReads is the budget of the bytes read from a docker-archive (decompressed).
func archiveReads(maxImageBytes int64) int64 { return 4 * maxImageBytes }

// archive is a docker-archive file.
type archive struct {
	ctx  context.Context
	path string
	lim  Limits
	used int64 // bytes read from it so far, by every open
}

// openArchive opens a docker-archive's image after checking its metadata.
func openArchive(ctx context.Context, p string, lim Limits) (v1.Image, error) {
	a := &archive{ctx: ctx, path: p, lim: lim}
	if err := a.scan(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	img, err := tarball.Image(a.open, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable docker-archive tarball: %w", p, err)
	}
	return img, nil
}

// open opens the archive for one read through, within the budget and the context.
func (a *archive) open() (io.ReadCloser, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	g := &guard{ctx: a.ctx, used: &a.used, max: archiveReads(a.lim.MaxImageBytes), err: func() error {
		return &LimitError{What: "read from the archive (gunzip a gzipped archive first)", Limit: archiveReads(a.lim.MaxImageBytes), Bytes: true,
			Field: "MaxImageBytes, times 4"}
	}}
	magic := make([]byte, 2)
	if n, _ := f.ReadAt(magic, 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, err
		}
		g.r = zr
		return readCloser{g, f}, nil
	}
	g.r = f
	return &seekingGuard{guard: g, f: f}, nil
}

// seekingGuard is a guarded plain archive that tar readers may seek through.
type seekingGuard struct {
	*guard
	f *os.File
}

func (s *seekingGuard) Seek(offset int64, whence int) (int64, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.f.Seek(offset, whence)
}

func (s *seekingGuard) Close() error { return s.f.Close() }

type readCloser struct {
	io.Reader
	io.Closer
}

// archiveEntry is what scan keeps of an archive's entry.
type archiveEntry struct {
	size int64
	link string // a link's target, "" for a file
}

// scan reads the archive's headers once: its manifest.json must be a file of at most
// maxManifestBytes naming one image, whose config is at most maxConfigBytes and whose
// layers are at most MaxLayers and hold at most MaxImageBytes.
func (a *archive) scan() error {
	rc, err := a.open()
	if err != nil {
		return fmt.Errorf("not a readable docker-archive tarball: %w", err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	entries := map[string]archiveEntry{}
	var manifest []byte
	for n := 1; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not a readable docker-archive tarball: %w", err)
		}
		if n > a.lim.MaxFiles {
			return &LimitError{What: "tar entries", Limit: int64(a.lim.MaxFiles), Field: "MaxFiles"}
		}
		p := path.Clean(h.Name)
		if _, seen := entries[p]; seen {
			continue // go-containerregistry reads the first
		}
		e := archiveEntry{size: h.Size}
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
			e = archiveEntry{link: path.Join(path.Dir(p), path.Clean(h.Linkname))}
		}
		entries[p] = e
		if p == "manifest.json" && e.link == "" {
			if manifest, err = readSmall(tr, h.Size, "in manifest.json", maxManifestBytes); err != nil {
				return err
			}
		}
	}
	if manifest == nil {
		return errors.New("not a readable docker-archive tarball: no manifest.json file")
	}
	return a.checkManifest(manifest, entries)
}

// checkManifest bounds the image that manifest.json names.
func (a *archive) checkManifest(data []byte, entries map[string]archiveEntry) error {
	var m tarball.Manifest
	if err := json.Unmarshal(data, &m); err != nil || len(m) != 1 {
		return nil // go-containerregistry says what is wrong
	}
	if len(m[0].Layers) > a.lim.MaxLayers {
		return fmt.Errorf("%d layers: %w", len(m[0].Layers), &LimitError{What: "layers", Limit: int64(a.lim.MaxLayers), Field: "MaxLayers"})
	}
	if size := resolveEntry(entries, m[0].Config); size > maxConfigBytes {
		return fmt.Errorf("the image config (%s): %w", m[0].Config, &LimitError{What: "in the image config", Limit: maxConfigBytes, Bytes: true})
	}
	var total int64
	for _, l := range m[0].Layers {
		if total += resolveEntry(entries, l); total > a.lim.MaxImageBytes {
			return fmt.Errorf("%s: %w", l, &LimitError{What: "of layers", Limit: a.lim.MaxImageBytes, Bytes: true, Field: "MaxImageBytes"})
		}
	}
	return nil
}

// resolveEntry is the size of the file p names, following links as go-containerregistry does
// (0 for a missing file or a link cycle).
func resolveEntry(entries map[string]archiveEntry, p string) int64 {
	p = path.Clean(p)
	for range len(entries) + 1 {
		e, ok := entries[p]
		if !ok {
			return 0
		}
		if e.link == "" {
			return e.size
		}
		p = e.link
	}
	return 0
}

// readSmall reads a file of at most max bytes.
func readSmall(r io.Reader, size int64, what string, max int64) ([]byte, error) {
	if size > max {
		return nil, &LimitError{What: what, Limit: max, Bytes: true}
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(data)) > max {
		err = &LimitError{What: what, Limit: max, Bytes: true}
	}
	return data, err
}
