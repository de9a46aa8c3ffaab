package fbc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// The catalog package keeps a hand-written YAML writer (snapshots) and a streaming decoder
// (catalog files) only where they beat the field's YAML library (go.yaml.in/yaml/v3) by at
// least 2× on the shared real catalogs. These benchmarks measure both sides on the same
// content; scripts/bench.sh (section catalog) prints the ratios.

// libraryCatalog is the community catalog beside the clone, else the reference folder's copy
// of the project's testdata catalogs (b skips without either).
func libraryCatalog(b testing.TB) string {
	p := filepath.Join(sharedCatalogs, "community-v4.20")
	if _, err := os.Stat(p); err != nil {
		return realCatalogs(b)
	}
	return p
}

// BenchmarkSnapshotWrite writes a catalog's CatalogSnapshot with the package's writer
// (own), and the same content with yaml.v3's encoder (yamlv3).
func BenchmarkSnapshotWrite(b *testing.B) {
	c, err := fbc.Load(libraryCatalog(b))
	if err != nil {
		b.Fatal(err)
	}
	var own bytes.Buffer
	if err := fbc.WriteSnapshot(c, &own, fbc.SnapshotMeta{}); err != nil {
		b.Fatal(err)
	}
	var tree any
	if err := yaml.Unmarshal(own.Bytes(), &tree); err != nil {
		b.Fatal(err)
	}
	b.Run("own", func(b *testing.B) {
		b.SetBytes(int64(own.Len()))
		b.ReportAllocs()
		for b.Loop() {
			if err := fbc.WriteSnapshot(c, io.Discard, fbc.SnapshotMeta{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yamlv3", func(b *testing.B) {
		b.SetBytes(int64(own.Len()))
		b.ReportAllocs()
		for b.Loop() {
			enc := yaml.NewEncoder(io.Discard)
			enc.SetIndent(2)
			if err := enc.Encode(tree); err != nil {
				b.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCatalogDecode reads a catalog folder's files with the package's streaming
// decoder into a catalog (own), and decodes the same files' documents with yaml.v3 into
// value trees, building nothing (yamlv3).
func BenchmarkCatalogDecode(b *testing.B) {
	root := libraryCatalog(b)
	var files [][]byte
	var size int64
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return err
		}
		data, err := os.ReadFile(p)
		files = append(files, data)
		size += int64(len(data))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("own", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fbc.Load(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yamlv3", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
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
				}
			}
		}
	})
}
