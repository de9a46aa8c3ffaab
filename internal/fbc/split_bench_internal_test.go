package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// splitBenchFiles reads the YAML files of the community catalog beside the clone (else
// the reference folder's copy of the project's testdata/catalogs; b skips without either),
// for the splitter benchmarks.
func splitBenchFiles(b *testing.B) [][]byte {
	root := filepath.Join("../../../shared/catalogs", "community-v4.20")
	if _, err := os.Stat(root); err != nil {
		root = refdata.Testdata(b, "catalogs")
	}
	var files [][]byte
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || formatOf(p) != "yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		files = append(files, data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// asJSONStream rewrites YAML files as one stream of indented JSON values, as
// `opm render` writes them.
func asJSONStream(b *testing.B, files [][]byte) []byte {
	var out bytes.Buffer
	for _, data := range files {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				b.Fatal(err)
			}
			text, err := json.MarshalIndent(v, "", "    ")
			if err != nil {
				b.Fatal(err)
			}
			out.Write(text)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// BenchmarkSplit measures the splitters alone (cutting and peeking, no decoding) on real
// catalog text: the cost every byte of a catalog pays, whatever a render keeps.
func BenchmarkSplit(b *testing.B) {
	files := splitBenchFiles(b)
	emit := func(*chunk) error { return nil }
	b.Run("yaml", func(b *testing.B) {
		var size int64
		for _, f := range files {
			size += int64(len(f))
		}
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range files {
				if err := splitYAML("x.yaml", bytes.NewReader(f), emit, func(int) {}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		stream := asJSONStream(b, files)
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		for b.Loop() {
			if err := splitJSON("x.json", bytes.NewReader(stream), emit, func(int) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
