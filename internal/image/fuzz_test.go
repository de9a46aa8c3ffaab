package image

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/layered"
)

// The fuzzer's limits: small, so that "huge" files and many entries are cheap to build.
var fuzzLimits = Limits{MaxLayers: 8, MaxFiles: 48, MaxFileBytes: 2048, MaxReadBytes: 12 << 10, MaxImageBytes: 48 << 10}

// fuzzNames are the paths the programs name: the manifests folder, escapes, absolute and
// dotted paths, whiteouts, and names that are no catalog file. An index past them names the
// fuzzed string.
var fuzzNames = []string{
	"manifests/csv.yaml", "manifests/crd.json", "manifests/cm.yml", "manifests/sub/a.yaml",
	"manifests/sub", "manifests", "/manifests/csv.yaml", "./manifests/crd.json",
	"manifests/../manifests/cm.yml", "../manifests/csv.yaml", "manifests/../../etc/x.yaml",
	"manifests/./sub/../a.yaml", "manifests//sub///b.json", "manifests/a.yaml/b.yaml",
	"manifests/a.yaml", "metadata/annotations.yaml", "manifests/README.md", "manifests/.wh.csv.yaml",
	"manifests/.wh..wh..opq", ".wh.manifests", ".wh..wh..opq", "/", ".", "",
	"manifests/sub/.wh..wh..opq", "manifestsx/a.yaml", "manifests/\x00.yaml", "etc/passwd",
}

// fuzzBodies are the bodies of regular files: a bundle's manifests and garbage.
var fuzzBodies = []string{
	"apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x.v1.0.0}\nspec: {}\n",
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}`,
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}\n",
	"", "schema: [broken", "\x00\x01\x02",
}

// Entry kinds of a program: each entry is three bytes, kind, name, body.
const (
	opFile = iota
	opDir
	opSymlink
	opHardlink
	opWhiteout // the name's base with .wh.
	opOpaque   // the name as a folder, with .wh..wh..opq
	opHuge     // a file one byte past MaxFileBytes
	opNextLayer
	opFuzzBody // a file with the fuzzed body
	opKinds
)

type fuzzEntry struct {
	h    tar.Header
	body []byte
}

// fuzzLayers decodes a program into layers of tar entries.
func fuzzLayers(program []byte, name string, body []byte) [][]fuzzEntry {
	layers := [][]fuzzEntry{nil}
	for i := 0; i+2 < len(program) && i < 3*80; i += 3 {
		n := name
		if j := int(program[i+1]); j < len(fuzzNames) {
			n = fuzzNames[j]
		}
		b := []byte(fuzzBodies[int(program[i+2])%len(fuzzBodies)])
		h := tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg}
		switch program[i] % opKinds {
		case opNextLayer:
			layers = append(layers, nil)
			continue
		case opDir:
			h.Typeflag, b = tar.TypeDir, nil
		case opSymlink, opHardlink:
			h.Typeflag, h.Linkname, b = tar.TypeSymlink, fuzzNames[int(program[i+2])%len(fuzzNames)], nil
			if program[i]%opKinds == opHardlink {
				h.Typeflag = tar.TypeLink
			}
		case opWhiteout:
			dir, base := path.Split(n)
			h.Name, b = dir+".wh."+base, nil
		case opOpaque:
			h.Name, b = strings.TrimSuffix(n, "/")+"/.wh..wh..opq", nil
		case opHuge:
			b = make([]byte, fuzzLimits.MaxFileBytes+1)
		case opFuzzBody:
			b = body
		}
		h.Size = int64(len(b))
		layers[len(layers)-1] = append(layers[len(layers)-1], fuzzEntry{h: h, body: b})
	}
	return layers
}

// tarOf writes entries as a tar stream; the entries tar refuses are left out, as they are
// from the model.
func tarOf(entries []fuzzEntry) ([]byte, []fuzzEntry) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	var kept []fuzzEntry
	for _, e := range entries {
		h := e.h
		h.ModTime = time.Unix(0, 0)
		var one bytes.Buffer
		probe := tar.NewWriter(&one)
		if probe.WriteHeader(&h) != nil {
			continue
		}
		if tw.WriteHeader(&h) != nil {
			break
		}
		_, _ = tw.Write(e.body)
		kept = append(kept, e)
	}
	_ = tw.Close()
	return buf.Bytes(), kept
}

// memLayer is an uncompressed layer held in memory; the reader asks only for its stream.
type memLayer struct{ data []byte }

func (l memLayer) Digest() (v1.Hash, error) {
	return v1.Hash{Algorithm: "sha256", Hex: sha256Hex(l.data)}, nil
}
func (l memLayer) DiffID() (v1.Hash, error)           { return l.Digest() }
func (l memLayer) Compressed() (io.ReadCloser, error) { return l.Uncompressed() }
func (l memLayer) Uncompressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.data)), nil
}
func (l memLayer) Size() (int64, error)                { return int64(len(l.data)), nil }
func (l memLayer) MediaType() (types.MediaType, error) { return types.DockerUncompressedLayer, nil }

// readFuzzLayers reads the layers as a bundle's, and gives the manifest files it kept.
func readFuzzLayers(layers [][]byte) ([]fbc.ManifestFile, *imageReader, error) {
	sink := manifestsSink{files: layered.New[[]byte]()}
	ir := &imageReader{ctx: context.Background(), source: "fuzz", noun: "bundle image", rootRel: "manifests",
		lim: fuzzLimits, opts: Options{Warn: func(string) {}}, sink: sink}
	for _, l := range layers {
		if err := ir.readLayer(memLayer{l}); err != nil {
			return nil, ir, err
		}
		sink.NextLayer()
	}
	var out []fbc.ManifestFile
	for _, f := range sink.files.Files() {
		out = append(out, fbc.ManifestFile{Name: f.Path, Data: f.Value})
	}
	return out, ir, nil
}

// modelFiles is what the OCI layer format says the manifests folder holds after the layers:
// each layer's whiteouts remove files of the earlier layers (a path and what is below it, or
// what is below a folder), its files replace earlier files and folders of their names, and
// within a layer the last file of a name wins. It rescans everything, as the reader must not.
func modelFiles(layers [][]fuzzEntry) []fbc.ManifestFile {
	const root = "manifests"
	under := func(p string) (string, bool) {
		if p == root {
			return "", true
		}
		return strings.CutPrefix(p, root+"/")
	}
	above := func(p string) bool { return p == "" || strings.HasPrefix(root+"/", p+"/") } //nolint:gocritic // argOrder: on purpose, p is a folder that holds root
	below := func(p, dir string) bool { return dir == "" || p == dir || strings.HasPrefix(p, dir+"/") }
	files := map[string][]byte{}
	for _, layer := range layers {
		put := map[string][]byte{}
		var gone, emptied []string
		for _, e := range layer {
			p := strings.TrimPrefix(path.Clean("/"+e.h.Name), "/")
			dir, base := path.Split(p)
			dir = strings.TrimSuffix(dir, "/")
			target, whiteout := path.Join(dir, strings.TrimPrefix(base, ".wh.")), strings.HasPrefix(base, ".wh.")
			switch rel, ok := under(dir); {
			case base == ".wh..wh..opq" && ok:
				emptied = append(emptied, rel)
			case base == ".wh..wh..opq" && above(dir):
				emptied = append(emptied, "")
			case whiteout:
				if rel, ok := under(target); ok {
					gone = append(gone, rel)
				} else if above(target) {
					gone = append(gone, "")
				}
			case e.h.Typeflag == tar.TypeReg:
				if rel, ok := under(p); ok && rel != "" && catalogFile(rel) {
					put[rel] = e.body
				}
			}
		}
		for p := range files {
			for _, d := range gone {
				if below(p, d) {
					delete(files, p)
				}
			}
			for _, d := range emptied {
				if d == "" || strings.HasPrefix(p, d+"/") {
					delete(files, p)
				}
			}
			for q := range put {
				if strings.HasPrefix(p, q+"/") {
					delete(files, p)
				}
			}
		}
		for p, b := range put {
			files[p] = b
		}
	}
	var out []fbc.ManifestFile
	for p, b := range files {
		out = append(out, fbc.ManifestFile{Name: p, Data: b})
	}
	slices.SortFunc(out, func(a, b fbc.ManifestFile) int { return walkOrderOf(a.Name, b.Name) })
	return out
}

func walkOrderOf(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// FuzzBundleLayers: whatever the layers of a bundle image hold (escaping, absolute and dotted
// names, whiteouts and opaque folders, links, files past the limits, duplicates), reading
// them does not panic, keeps only catalog files inside the manifests folder, holds to the
// limits, gives what the OCI layer format says (modelFiles), and gives it every time.
func FuzzBundleLayers(f *testing.F) {
	e := func(kind, name, body byte) []byte { return []byte{kind, name, body} }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	next := e(opNextLayer, 0, 0)
	bundle := cat(e(opFile, 0, 0), e(opFile, 1, 1), e(opFile, 2, 2))
	for _, seed := range [][]byte{
		bundle,
		cat(bundle, next, e(opWhiteout, 1, 0)), // a later layer deletes the CRD
		cat(bundle, e(opWhiteout, 1, 0)),       // a whiteout spares its own layer
		cat(bundle, e(opFile, 3, 2), next, e(opOpaque, 4, 0), e(opFile, 3, 2)),     // an opaque folder
		cat(bundle, next, e(opFile, 19, 0)),                                        // .wh.manifests at the root
		cat(bundle, next, e(opFile, 20, 0)),                                        // an opaque root
		cat(e(opFile, 9, 0), e(opFile, 10, 2), e(opFile, 8, 2), e(opFile, 6, 0)),   // escapes and absolute names
		cat(e(opFile, 7, 1), e(opFile, 11, 2), e(opFile, 12, 1), e(opFile, 25, 0)), // dotted and doubled slashes
		cat(bundle, e(opSymlink, 3, 27), e(opHardlink, 14, 0), e(opDir, 4, 0)),     // links and folders
		cat(bundle, e(opHuge, 3, 0)),                                               // a file past the limit
		cat(bundle, e(opHuge, 16, 0)),                                              // a large file outside the wanted ones
		cat(bundle, e(opFile, 0, 4), e(opFile, 0, 0), next, e(opFile, 0, 0)),       // duplicates
		cat(e(opFile, 14, 2), next, e(opFile, 13, 2), next, e(opFile, 14, 2)),      // a file and a folder of one name
		cat(bundle, e(opFuzzBody, 3, 0), e(opFile, 255, 0)),                        // the fuzzed body and name
		bytes.Repeat(cat(e(opWhiteout, 3, 0), e(opOpaque, 4, 0)), 30),              // more entries than the limit
		bytes.Repeat(cat(e(opFile, 0, 0), next), 10),                               // many layers
	} {
		f.Add(seed, "manifests/fuzzed.yaml", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"))
	}
	// files within their limit, past the limit of all files read
	f.Add(bytes.Repeat(e(opFuzzBody, 255, 0), 8), "manifests/same.yaml", bytes.Repeat([]byte("#"), 2000))
	f.Add(cat(e(opFuzzBody, 0, 0), e(opFuzzBody, 1, 0), e(opFuzzBody, 2, 0), e(opFuzzBody, 3, 0), e(opFuzzBody, 12, 0),
		e(opFuzzBody, 13, 0), e(opFuzzBody, 14, 0)), "", bytes.Repeat([]byte("#"), 2000))
	f.Fuzz(func(t *testing.T, program []byte, name string, body []byte) {
		layers := fuzzLayers(program, name, body)
		streams := make([][]byte, len(layers))
		for i, l := range layers {
			streams[i], layers[i] = tarOf(l)
		}
		files, ir, err := readFuzzLayers(streams)
		again, _, err2 := readFuzzLayers(streams)
		require.Equal(t, errString(err), errString(err2), "deterministic")
		require.Equal(t, files, again, "deterministic")

		assert.LessOrEqual(t, ir.entries, fuzzLimits.MaxFiles+1)
		assert.LessOrEqual(t, ir.layerBytes, fuzzLimits.MaxImageBytes+1)
		assert.LessOrEqual(t, ir.fileBytes, fuzzLimits.MaxReadBytes+1)
		if err != nil {
			return
		}
		var read int64
		for _, f := range files {
			read += int64(len(f.Data))
			assert.True(t, f.Name != "" && path.Clean(f.Name) == f.Name && !path.IsAbs(f.Name) &&
				f.Name != ".." && !strings.HasPrefix(f.Name, "../") && catalogFile(f.Name), "a file outside the manifests folder: %q", f.Name)
			assert.LessOrEqual(t, int64(len(f.Data)), fuzzLimits.MaxFileBytes)
		}
		assert.LessOrEqual(t, read, fuzzLimits.MaxReadBytes)
		assert.Equal(t, modelFiles(layers), files, "the OCI layer format's result")

		c, err := fbc.ContentsFromManifests(files)
		c2, err2 := fbc.ContentsFromManifests(files)
		require.Equal(t, errString(err), errString(err2), "deterministic")
		j, _ := json.Marshal(c)
		j2, _ := json.Marshal(c2)
		require.Equal(t, string(j), string(j2), "deterministic")
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
