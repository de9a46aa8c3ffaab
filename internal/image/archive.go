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
// context and two budgets: one read through the archive holds at most the image's layers and
// some metadata (archiveBytes), and all of them together read at most archiveReads. A plain
// tar is seekable, and tar readers skip what they do not need by seeking, so its budgets go
// to the files read; a gzipped one is decompressed from its start each time (so gunzip a
// large one first).

// archiveBytes bounds one read through a docker-archive (decompressed): the layers, and room
// for the config and the manifest.
func archiveBytes(lim Limits) int64 { return lim.MaxImageBytes + 64<<20 }

// archiveReads bounds all the reads of a docker-archive together.
func archiveReads(lim Limits) int64 { return 4 * archiveBytes(lim) }

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

// open opens the archive for one read through, within the budgets and the context.
func (a *archive) open() (io.ReadCloser, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	all := &guard{ctx: a.ctx, used: &a.used, max: archiveReads(a.lim), err: func() error {
		return &LimitError{What: "read from the archive by all reads (a gzipped archive is read from its start for each file: gunzip it first)",
			Limit: archiveReads(a.lim), Bytes: true, Field: "MaxImageBytes, plus 64 MiB, times 4"}
	}}
	var used int64
	once := &guard{ctx: a.ctx, r: all, used: &used, max: archiveBytes(a.lim), err: func() error {
		return &LimitError{What: "in the archive, uncompressed", Limit: archiveBytes(a.lim), Bytes: true, Field: "MaxImageBytes, plus 64 MiB"}
	}}
	magic := make([]byte, 2)
	if n, _ := f.ReadAt(magic, 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, err
		}
		all.r = zr
		return readCloser{once, f}, nil
	}
	all.r = f
	return &seekingGuard{guard: once, f: f}, nil
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
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return streamError("", err)
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

// readSmall reads a file of at most limit bytes.
func readSmall(r io.Reader, size int64, what string, limit int64) ([]byte, error) {
	if size > limit {
		return nil, &LimitError{What: what, Limit: limit, Bytes: true}
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = &LimitError{What: what, Limit: limit, Bytes: true}
	}
	return data, err
}
