package testtools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ZerosLayer is a decompression bomb: a gzip layer whose tar holds the entries, then one file
// of size zero bytes at name; with name "", the tar ends after the entries and size zero
// bytes trail it. It is built without writing size bytes, so a test may ask for gigabytes:
// gzip readers join the members of a stream, and the zeros are one mebibyte compressed once
// (about a kilobyte) and repeated. Its DiffID is not the hash of its tar (that would cost
// reading all of it); nothing that reads layers checks it.
func ZerosLayer(t testing.TB, name string, size int64, entries ...TarEntry) v1.Layer {
	t.Helper()
	var head bytes.Buffer
	tw := tar.NewWriter(&head)
	writeEntries(t, tw, entries)
	var tail int64
	if name == "" {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		// the header only: the writer is dropped, as the zeros follow in other members
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		tail = (512-size%512)%512 + 1024 // padding, end of archive
	}
	var out bytes.Buffer
	out.Write(gzipped(t, head.Bytes()))
	mib := gzipped(t, make([]byte, 1<<20))
	for range size >> 20 {
		out.Write(mib)
	}
	out.Write(gzipped(t, make([]byte, size&(1<<20-1)+tail)))
	data := out.Bytes()
	sum := sha256.Sum256(data)
	l, err := partial.CompressedToLayer(&compressedBlob{data: data, digest: v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compressedBlob is a gzip layer held in memory, with a stand-in DiffID (its digest).
type compressedBlob struct {
	data   []byte
	digest v1.Hash
}

func (c *compressedBlob) Digest() (v1.Hash, error) { return c.digest, nil }
func (c *compressedBlob) DiffID() (v1.Hash, error) { return c.digest, nil }
func (c *compressedBlob) Size() (int64, error)     { return int64(len(c.data)), nil }
func (c *compressedBlob) MediaType() (types.MediaType, error) {
	return types.DockerLayer, nil
}
func (c *compressedBlob) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(c.data)), nil
}

// RawEntry is any tar entry of a test layer, for hostile layers: a header as given (links,
// whiteouts, sizes that do not match the body…) and the body written after it.
type RawEntry struct {
	Header tar.Header
	Body   []byte
}

// RawLayer is an uncompressed layer of the entries, in order. Each header is written as given
// (with a zero time when it has none); a body shorter than the header's size is padded with
// zeros, so that the stream stays a valid tar.
func RawLayer(t testing.TB, entries ...RawEntry) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.Header
		if h.ModTime.IsZero() {
			h.ModTime = time.Unix(0, 0)
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		body := e.Body
		if int64(len(body)) > h.Size {
			body = body[:h.Size]
		}
		if _, err := tw.Write(body); err != nil && h.Size > 0 {
			t.Fatal(err)
		}
		if rest := h.Size - int64(len(body)); rest > 0 && (h.Typeflag == tar.TypeReg || h.Typeflag == 0) { // 0, unset: the writer writes a regular file
			if _, err := io.CopyN(tw, zeros{}, rest); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return layerOf(t, buf.Bytes())
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
